/**
 * The demo Target: a small real project whose own tests are the Checks (and the sandbox CI), and six
 * `ready-for-agent` tickets chosen so one Run shows every ending (docs/demo.md):
 *
 *   #1 merges            #2 fails the Checks once, is fixed, merges     #3 is handed off
 *   #4 needs a conflict Stage, merges   #5 merges   #6 hits the rate limit and is released
 *
 * #6 is last on purpose: after a Release a Run claims nothing more, so an earlier rate limit would
 * leave later tickets unclaimed and the demo would not show four merges.
 */

export interface DemoIssue {
  title: string;
  body: string;
  labels: string[];
}

export const DEMO_OWNER = "demo";
export const DEMO_REPO = "shop";

const cartJs = `// A tiny shopping cart. Prices are in cents.
const CURRENCY = "EUR";

function subtotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

function total(items, options = {}) {
  let amount = subtotal(items);
  if (options.member) amount = Math.round(amount * 0.9);
  return amount;
}

module.exports = { CURRENCY, subtotal, total };
`;

const cartTestJs = `const test = require("node:test");
const assert = require("node:assert/strict");
const { subtotal, total } = require("../src/cart.js");

const items = [
  { name: "tea", price: 450, quantity: 2 },
  { name: "cake", price: 300, quantity: 1 },
];

test("subtotal adds every line", () => {
  assert.equal(subtotal(items), 1200);
});

test("members get ten percent off", () => {
  assert.equal(total(items, { member: true }), 1080);
});
`;

export const DEMO_FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "shop", version: "1.0.0", private: true, scripts: { test: "node --test" } }, null, 2) + "\n",
  "README.md": "# shop\n\nA tiny shopping cart used by the Ticket Runner demo.\n\nCurrency: EUR\n",
  "src/cart.js": cartJs,
  "test/cart.test.js": cartTestJs,
  "ticket-runner.json":
    JSON.stringify(
      { lanes: 2, checks: [["node", "--test"]], agent: { kind: "demo" }, ci: { graceMinutes: 1, pollSeconds: 1 }, lease: { settleMs: 200 } },
      null,
      2,
    ) + "\n",
  ".gitignore": ".worktrees/\n.ticket-runner/\nnode_modules/\n",
};

export const DEMO_CI_COMMAND = ["node", "--test"];

function demoBlock(spec: object): string {
  return "```ticket-runner-demo\n" + JSON.stringify(spec, null, 2) + "\n```";
}

const formatJs = `function formatPrice(cents, currency = "EUR") {
  return (cents / 100).toFixed(2) + " " + currency;
}

module.exports = { formatPrice };
`;

const formatTestJs = `const test = require("node:test");
const assert = require("node:assert/strict");
const { formatPrice } = require("../src/format.js");

test("formats cents as a price", () => {
  assert.equal(formatPrice(1234), "12.34 EUR");
});
`;

const renewalGood = `const { total } = require("./cart.js");

// A renewal is billed at the member price once; the discount must not stack.
function renewalTotal(items) {
  return total(items, { member: true });
}

module.exports = { renewalTotal };
`;

const renewalBuggy = `const { total } = require("./cart.js");

function renewalTotal(items) {
  return Math.round(total(items, { member: true }) * 0.9);
}

module.exports = { renewalTotal };
`;

const renewalTest = `const test = require("node:test");
const assert = require("node:assert/strict");
const { renewalTotal } = require("../src/renewal.js");

test("the member discount applies once on renewal", () => {
  assert.equal(renewalTotal([{ name: "box", price: 1000, quantity: 1 }]), 900);
});
`;

const shippingJs = `// Orders at or above the threshold ship free.
const FREE_SHIPPING_FROM = 5000;
const SHIPPING = 495;

function shipping(subtotalCents) {
  return subtotalCents >= FREE_SHIPPING_FROM ? 0 : SHIPPING;
}

module.exports = { FREE_SHIPPING_FROM, shipping };
`;

const shippingTest = `const test = require("node:test");
const assert = require("node:assert/strict");
const { shipping } = require("../src/shipping.js");

test("free shipping from fifty euros", () => {
  assert.equal(shipping(5000), 0);
  assert.equal(shipping(4999), 495);
});
`;

export const DEMO_ISSUES: DemoIssue[] = [
  {
    title: "Add a formatPrice helper",
    labels: ["ready-for-agent"],
    body: [
      "Prices are stored in cents; we need one place that formats them for people.",
      "",
      "- [ ] `src/format.js` exports `formatPrice(cents, currency)`",
      "- [ ] `formatPrice(1234)` returns `12.34 EUR`, with a test",
      "",
      demoBlock({
        files: { "src/format.js": formatJs, "test/format.test.js": formatTestJs },
        criteria: [
          { file: "src/format.js", contains: "function formatPrice" },
          { file: "test/format.test.js", contains: "12.34 EUR" },
        ],
      }),
    ].join("\n"),
  },
  {
    title: "Member discount applied twice on renewal",
    labels: ["ready-for-agent"],
    body: [
      "Renewals take the member discount twice. It must apply once.",
      "",
      "- [ ] `renewalTotal` applies the member discount exactly once",
      "- [ ] a test covers a renewal of 10.00 EUR costing 9.00 EUR",
      "",
      demoBlock({
        files: { "src/renewal.js": renewalBuggy, "test/renewal.test.js": renewalTest },
        fixFiles: { "src/renewal.js": renewalGood },
        criteria: [
          { file: "src/renewal.js", contains: "total(items, { member: true });" },
          { file: "test/renewal.test.js", contains: "900" },
        ],
        behaviours: ["fail-checks-once"],
      }),
    ].join("\n"),
  },
  {
    title: "Support coupon codes",
    labels: ["ready-for-agent"],
    body: [
      "Customers want coupon codes. The business rules are not settled yet, so an agent will not",
      "meet them; this ticket shows a hand-off.",
      "",
      "- [ ] `src/coupons.js` validates codes against the campaign list",
      "- [ ] expired codes are refused with a reason",
      "",
      demoBlock({
        files: { "src/coupons.js": "// Coupon codes: rules pending.\nmodule.exports = {};\n" },
        criteria: [
          { file: "src/coupons.js", contains: "campaign" },
          { file: "src/coupons.js", contains: "expired" },
        ],
        behaviours: ["unmet-criteria"],
      }),
    ].join("\n"),
  },
  {
    title: "Name the currency in the README",
    labels: ["ready-for-agent"],
    body: [
      "The README should say which currency the cart uses, in words.",
      "",
      "- [ ] the README names the currency as `Currency: euro (EUR)`",
      "",
      // The title (commit message) must not start with "#": `git rebase --continue` runs the
      // editor with cleanup=strip, which reads a "#4 ..." message as a comment and empties it, and
      // the conflict Stage would then skip the ticket's commit (docs/demo.md, "Known issues").
      demoBlock({
        title: "docs: name the currency in the README",
        files: { "README.md": "# shop\n\nA tiny shopping cart used by the Ticket Runner demo.\n\nCurrency: euro (EUR)\n" },
        criteria: [{ file: "README.md", contains: "Currency: euro (EUR)" }],
        behaviours: ["conflict"],
      }),
    ].join("\n"),
  },
  {
    title: "Free shipping from fifty euros",
    labels: ["ready-for-agent"],
    body: [
      "Orders of 50.00 EUR or more ship free; smaller ones pay 4.95 EUR.",
      "",
      "- [ ] `src/shipping.js` exports `shipping(subtotalCents)`",
      "- [ ] a test covers both sides of the threshold",
      "",
      demoBlock({
        files: { "src/shipping.js": shippingJs, "test/shipping.test.js": shippingTest },
        criteria: [
          { file: "src/shipping.js", contains: "FREE_SHIPPING_FROM = 5000" },
          { file: "test/shipping.test.js", contains: "4999" },
        ],
      }),
    ].join("\n"),
  },
  {
    title: "Round totals to whole cents",
    labels: ["ready-for-agent"],
    body: [
      "Totals must always be whole cents. The demo agent hits its rate limit on this one, so the Run",
      "releases it: back to ready-for-agent, progress kept, for the next Run to resume.",
      "",
      "- [ ] `total` never returns a fraction of a cent",
      "",
      demoBlock({
        files: { "src/cart.js": cartJs.replace("return amount;", "return Math.round(amount);") },
        criteria: [{ file: "src/cart.js", contains: "Math.round(amount)" }],
        behaviours: ["rate-limit-once"],
      }),
    ].join("\n"),
  },
];
