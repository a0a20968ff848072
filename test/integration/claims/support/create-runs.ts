/**
 * A separate process that creates run.json in issue-1, issue-2, … under <root> as fast as it can,
 * until it is killed. Usage: node --require tsx/cjs create-runs.ts <root>
 */
import { FsRunRoot } from "../../../../src/adapters/fs-run-root";
import type { RunJson } from "../../../../src/core/schemas/run-json";
import { runJsonFixture } from "../../../support/run-json";

const root = process.argv[2];
if (!root) throw new Error("usage: create-runs.ts <root>");
const runRoot = new FsRunRoot(root);
const repo = { owner: "acme", repo: "widgets" };

function record(issue: number): RunJson {
  return runJsonFixture({ issue, session: `s-${process.pid}-${issue}`, pid: process.pid, startedAt: new Date().toISOString(), holder: "machine" });
}

async function main(): Promise<void> {
  for (let issue = 1; ; issue++) {
    const created = await runRoot.create(runRoot.dirFor(repo, issue), record(issue));
    if (created.kind !== "created") throw new Error(`issue-${issue} existed already`);
    if (issue === 1) process.stdout.write("started\n");
  }
}

void main();
