/**
 * The built-in `demo` seed: one small repository with the three workflow labels. The demo agent
 * owner may replace the files and add issues here; keep all seed data in this one file.
 */
import type { CreateRepoSpec } from "../repos-admin";

export const DEMO_OWNER = "demo";
export const DEMO_REPO = "shop";

export const demoRepo: CreateRepoSpec = {
  owner: DEMO_OWNER,
  name: DEMO_REPO,
  defaultBranch: "main",
  files: {
    "README.md": "# shop\n\nA tiny demo project for Ticket Runner.\n",
    "package.json": JSON.stringify({ name: "shop", version: "1.0.0", private: true, scripts: { test: "node test.js" } }, null, 2) + "\n",
    "src/cart.js": "function total(items) {\n  return items.reduce((sum, item) => sum + item.price * item.qty, 0);\n}\nmodule.exports = { total };\n",
    "test.js": "const assert = require('node:assert');\nconst { total } = require('./src/cart');\nassert.strictEqual(total([{ price: 2, qty: 3 }]), 6);\nconsole.log('ok');\n",
  },
  ciCommand: ["node", "test.js"],
  labels: [
    { name: "ready-for-agent", color: "0e8a16", description: "An agent may pick this up" },
    { name: "in-progress", color: "fbca04", description: "Claimed by a Run" },
    { name: "ready-for-human", color: "d93f0b", description: "Handed to a person" },
  ],
};

/** Issues the demo seed opens, oldest first. */
export const demoIssues: { title: string; body: string; labels: string[] }[] = [
  {
    title: "Add a discount to the cart total",
    body: "Apply a percentage discount to `total`.\n\n- [ ] `total(items, 10)` takes 10% off\n",
    labels: ["ready-for-agent"],
  },
];
