import { strict as assert } from "node:assert";
import { holdAdvice, siblingIssueUrl } from "../../../src/core/run/hold-advice";
import { criteriaHold, holdReason, startHold, readyLabelCheck, type Hold } from "../../../src/core/run/holds";
import { readTicketChoices } from "../../../src/core/run/ticket-choices";
import { configSchema } from "../../../src/core/schemas/config";
import { FakeGitHub } from "../../fakes/fake-tracker";
import { CRITERIA, MemoryLog, World } from "./world";

const config = configSchema.parse({});
const READS = new Set(["listOpenIssues", "labelActors", "permissionOf", "openBlockers"]);

/** A repository with one ticket of each kind a person could be offered by Start on Ticket. */
function repository() {
  const gh = new FakeGitHub({ owner: "acme", repo: "widgets" });
  gh.addUser("bot", "write");
  gh.addUser("alice", "admin");
  gh.addUser("eve", "triage");
  const ticket = (title: string, opts: { body?: string; by?: string; labels?: string[] } = {}) =>
    gh.addIssue({ title, body: opts.body ?? `Do it.\n\n${CRITERIA}\n`, labels: opts.labels ?? ["ready-for-agent"], by: opts.by ?? "alice" });
  const blocker = ticket("The schema", { labels: [] });
  const blocked = ticket("Use the schema");
  gh.addBlocker(blocked, blocker);
  const untrusted = ticket("Labelled by eve", { by: "eve" });
  const vague = ticket("Make it better", { body: "Make it better.\n\n- [x] already ticked" });
  const good2 = ticket("Second good");
  const good1 = ticket("First good");
  const human = ticket("With a person", { labels: ["ready-for-agent", "ready-for-human"] });
  return { gh, blocker, blocked, untrusted, vague, good1, good2, human, tracker: gh.client("bot") };
}

describe("Run: holds (why a Run would skip a ticket), read without side effects", () => {
  it("sorts startable tickets first, each skipped one with the Run's reason, and writes nothing", async () => {
    const r = repository();
    const progress: number[] = [];
    const choices = await readTicketChoices(r.tracker, config, new MemoryLog(), { progress: (done) => progress.push(done) });
    assert.deepEqual(
      choices.startable.map((c) => c.issue.number),
      [r.good2, r.good1],
    );
    assert.deepEqual(
      choices.skipped.map((c) => [c.issue.number, c.hold && holdReason(c.hold)]),
      [
        [r.blocked, `blocked by #${r.blocker}`],
        [r.untrusted, "ready-for-agent was applied by eve, who has no write access"],
        [r.vague, "no unticked `- [ ]` acceptance criteria"],
        [r.human, "not ready: labelled ready-for-human"],
      ],
    );
    assert.deepEqual(progress, [1, 2, 3, 4, 5, 6], "one progress step per checked ticket");
    assert.deepEqual(choices.unchecked, []);
    const methods = new Set(r.gh.requests.map((q) => q.method));
    assert.deepEqual(
      [...methods].filter((m) => !READS.has(m)),
      [],
      "reads only: no comment, label or claim",
    );
    assert.equal(r.gh.commentsOn(r.vague).length, 0, "the no-criteria guard's comment is the Run's, not the picker's");
  });

  it("keeps to the bound: one listing, then per ticket events and blockers, one permission read per labeller", async () => {
    const r = repository();
    await readTicketChoices(r.tracker, config, new MemoryLog());
    const count = (m: string) => r.gh.requests.filter((q) => q.method === m).length;
    assert.equal(count("listOpenIssues"), 1);
    // Six listed; the ready-for-human one is ruled out from its labels alone.
    assert.equal(count("labelActors"), 5);
    assert.equal(count("permissionOf"), 2, "alice and eve, once each");
    assert.equal(count("openBlockers"), 4, "only for trusted labels");
    assert.ok(r.gh.requests.length <= 1 + 3 * 6);
  });

  it("checks only the lowest `max` tickets; the rest are listed unchecked, at no cost", async () => {
    const r = repository();
    const choices = await readTicketChoices(r.tracker, config, new MemoryLog(), { max: 2, concurrency: 1 });
    assert.deepEqual([...choices.startable, ...choices.skipped].map((c) => c.issue.number).sort(), [r.blocked, r.untrusted]);
    assert.deepEqual(
      choices.unchecked.map((i) => i.number),
      [r.vague, r.good2, r.good1, r.human],
    );
    assert.equal(r.gh.requests.filter((q) => q.method === "labelActors").length, 2);
  });

  it("a ticket the tracker could not be asked about is skipped with the error, and the others still read", async () => {
    const r = repository();
    r.gh.failNext("openBlockers", new Error("502 from the API"));
    const choices = await readTicketChoices(r.tracker, config, new MemoryLog(), { concurrency: 1 });
    const failed = choices.skipped.find((c) => c.error);
    assert.equal(failed?.issue.number, r.blocked);
    assert.match(failed?.error ?? "", /502 from the API/);
    assert.deepEqual(
      choices.startable.map((c) => c.issue.number),
      [r.good2, r.good1],
    );
  });

  it("is the Run's rule: what the picker holds, a narrowed Run skips with the same line", async () => {
    const r = repository();
    const choices = await readTicketChoices(r.tracker, config, new MemoryLog());
    const w = new World();
    try {
      w.gh.addUser("eve", "triage");
      const blocker = w.ticket("The schema", { labels: [] });
      const blocked = w.ticket("Use the schema");
      w.gh.addBlocker(blocked, blocker);
      const vague = w.ticket("Make it better", { body: "Make it better." });
      const summary = await w.run({ tickets: [blocked, vague] }).start();
      assert.deepEqual(
        summary.rows.map((row) => row.line),
        [`blocked by #${blocker}`, "no unticked `- [ ]` acceptance criteria"],
      );
      const picked = choices.skipped.filter((c) => c.issue.number === r.blocked || c.issue.number === r.vague).map((c) => c.hold && holdReason(c.hold));
      assert.deepEqual(picked, [`blocked by #${r.blocker}`, "no unticked `- [ ]` acceptance criteria"]);
    } finally {
      w.dispose();
    }
  });

  it("says who applied an untrusted label, or that nobody is recorded", async () => {
    const gh = new FakeGitHub({ owner: "acme", repo: "widgets" });
    gh.addUser("eve", "read");
    const n = gh.addIssue({ title: "Nobody", body: CRITERIA, by: "alice" });
    gh.issue(n).labels.push("ready-for-agent"); // no labeled event
    const tracker = gh.client("bot");
    const issue = (await tracker.getIssue(n))!;
    const hold = await startHold(tracker, config, readyLabelCheck(tracker, "ready-for-agent", new MemoryLog()), issue);
    assert.deepEqual(hold, { kind: "untrusted", label: "ready-for-agent", actor: null });
    assert.equal(holdReason(hold!), "nobody is recorded as applying ready-for-agent, so it does not count");
    assert.equal(
      holdReason({ kind: "untrusted", label: "ready-for-agent" }),
      "ready-for-agent was not applied by someone with write access",
      "a yes/no trust check keeps the Run's old line",
    );
  });

  it("criteria: an unticked item outside a fence counts; ticked or fenced ones do not", () => {
    assert.equal(criteriaHold({ body: "- [ ] it spins" }), null);
    assert.deepEqual(criteriaHold({ body: "- [x] done\n```\n- [ ] fenced\n```" }), { kind: "no-criteria" });
  });
});

describe("Run: hold advice (a hold in a person's words)", () => {
  const issue = { number: 5, url: "https://github.test/acme/widgets/issues/5" };
  const advise = (hold: Hold) => holdAdvice(hold, issue, "acme/widgets");

  it("blocked: names the open blocker with its link, and says to close it first", () => {
    const a = advise({ kind: "blocked", blockers: [3] });
    assert.equal(a.reason, "blocked by #3 (open)");
    assert.deepEqual(a.holder, { text: "#3", url: "https://github.test/acme/widgets/issues/3" });
    assert.equal(a.fix, "close #3 first (or remove it from #5's blocked-by list)");
    assert.equal(advise({ kind: "blocked", blockers: [3, 4] }).fix, "close #3 and #4 first (or remove them from #5's blocked-by list)");
  });

  it("untrusted: names who applied the label and who can fix it", () => {
    const a = advise({ kind: "untrusted", label: "ready-for-agent", actor: "eve" });
    assert.equal(a.reason, "ready-for-agent applied by eve, who has no write access");
    assert.equal(a.holder.text, "eve");
    assert.equal(a.fix, "someone with write access to acme/widgets removes ready-for-agent from #5 and applies it again");
  });

  it("no criteria, held, with a person, not labelled, closed: each has a reason and a step", () => {
    assert.equal(advise({ kind: "no-criteria" }).reason, "no unticked acceptance criteria");
    assert.match(advise({ kind: "no-criteria" }).fix, /add acceptance criteria to #5's body as unticked task-list items/);
    assert.equal(advise({ kind: "held", by: ["bob"] }).reason, "assigned to bob");
    const human = advise({ kind: "labelled", label: "ready-for-human", as: "human" });
    assert.equal(human.command, "ticket-runner hand-back 5");
    assert.equal(advise({ kind: "labelled", label: "in-progress", as: "in-progress" }).command, undefined);
    assert.equal(advise({ kind: "not-labelled", label: "ready-for-agent" }).fix, "apply ready-for-agent to #5");
    assert.equal(advise({ kind: "not-open" }).fix, "reopen #5");
  });

  it("a sibling issue's address comes from the ticket's own", () => {
    assert.equal(siblingIssueUrl("http://127.0.0.1:4000/demo/shop/issues/12", 3), "http://127.0.0.1:4000/demo/shop/issues/3");
    assert.equal(siblingIssueUrl("not a url", 3), "not a url");
  });
});
