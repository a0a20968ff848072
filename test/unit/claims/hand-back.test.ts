import * as assert from "node:assert/strict";
import { handBackTicket, planHandBack, type HandBackDeps } from "../../../src/core/claims/hand-back";
import { isRefusal } from "../../../src/core/errors";
import type { StateFile } from "../../../src/core/schemas/state-file";
import { FakeGitHub } from "../../fakes/fake-tracker";

const labels = { ready: "ready-for-agent", human: "ready-for-human" };
const state: StateFile = {
  ticket: 1,
  branch: "agent/1-x",
  state: "implemented",
  fixUsed: true,
  pullRequest: 5,
  title: "x",
  runId: "r1",
  version: "0.0.0",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

function setup(issueLabels: string[], readState?: HandBackDeps["readState"]) {
  const gh = new FakeGitHub({ owner: "acme", repo: "widgets" });
  gh.addUser("alice", "write");
  const n = gh.addIssue({ title: "x", labels: issueLabels, by: "alice" });
  gh.issue(n).assignees.push("bob");
  const deps: HandBackDeps = { tracker: gh.client("alice"), labels, repoName: "acme/widgets", readState };
  return { gh, n, deps };
}

async function refusal(p: Promise<unknown>): Promise<{ reason: string; message: string; link?: string; next?: string }> {
  try {
    await p;
  } catch (e) {
    if (isRefusal(e)) return { reason: e.reason, message: e.message, link: e.details.link, next: e.details.next };
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("hand back (ready-for-human -> ready-for-agent)", () => {
  it("swaps the labels only: assignees and everything else stay; names where the next Run resumes", async () => {
    const { gh, n, deps } = setup([labels.human, "bug"], async () => state);
    const result = await handBackTicket(deps, n);
    assert.equal(result.kind, "handed-back");
    assert.deepEqual([...gh.issue(n).labels].sort(), ["bug", labels.ready]);
    assert.deepEqual(gh.issue(n).assignees, ["bob"]);
    assert.match(result.plan.next, new RegExp(`^the next Run resumes #${n} from its State file \\(implemented on \`agent/1-x\`.*with a fresh fix budget$`));
    assert.ok(result.kind === "handed-back" && result.summary.includes(`acme/widgets#${n}`));
  });

  it("says it starts from the top when there is no State file, and still hands back when the State cannot be read", async () => {
    assert.match((await planHandBack(setup([labels.human], async () => null).deps, 1)).next, /from the top/);
    const { gh, n, deps } = setup([labels.human], () => Promise.reject(new Error("bad json")));
    const result = await handBackTicket(deps, n);
    assert.match(result.plan.next, /its State file \(not read here: bad json\)/);
    assert.deepEqual(gh.issue(n).labels, [labels.ready]);
  });

  it("asks first: a cancelled confirmation writes nothing", async () => {
    const { gh, n, deps } = setup([labels.human]);
    let asked = "";
    const result = await handBackTicket(deps, n, { confirm: async (plan) => ((asked = plan.next), false) });
    assert.equal(result.kind, "cancelled");
    assert.match(asked, /resumes #1 from its State file with a fresh fix budget/);
    assert.deepEqual(gh.issue(n).labels, [labels.human]);
  });

  it("re-checks after the confirmation: a label moved meanwhile is refused", async () => {
    const { gh, n, deps } = setup([labels.human]);
    const r = await refusal(handBackTicket(deps, n, { confirm: async () => ((gh.issue(n).labels = [labels.ready]), true) }));
    assert.equal(r.reason, "not-ready");
  });

  it("refuses a Ticket not labelled ready-for-human, with the link and the next command", async () => {
    const { gh, n, deps } = setup([labels.ready]);
    const r = await refusal(handBackTicket(deps, n));
    assert.equal(r.reason, "not-ready");
    assert.match(r.message, /not labelled ready-for-human: it is already labelled ready-for-agent.*Nothing was changed/);
    assert.match(r.link ?? "", new RegExp(`/issues/${n}$`));
    assert.equal(r.next, "ticket-runner board");
    assert.deepEqual(gh.issue(n).labels, [labels.ready]);
  });

  it("refuses a closed Ticket and a missing one", async () => {
    const { gh, n, deps } = setup([labels.human]);
    gh.issue(n).state = "closed";
    const r = await refusal(handBackTicket(deps, n));
    assert.equal(r.reason, "not-open");
    assert.match(r.message, /is closed/);
    assert.equal(r.next, `ticket-runner hand-back ${n}`);
    assert.deepEqual(gh.issue(n).labels, [labels.human]);
    assert.equal((await refusal(handBackTicket(deps, 99))).reason, "bad-input");
  });
});
