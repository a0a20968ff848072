/**
 * Every refusal tells the way out: what happened, who holds what (with a link where there is a
 * holder), and the exact next command. Each row builds a refusal through its real producer and
 * checks the words a person sees in a terminal (`refusalText`: the message plus details).
 */
import assert from "node:assert/strict";
import { describe, it } from "mocha";
import type { RemoteGit } from "../../src/adapters/git/remote-git";
import type { GitRunner } from "../../src/adapters/git/git-runner";
import type { RepoContext } from "../../src/adapters/git/repo-context";
import { corruptLockRefusal, elsewhereRefusal, runningRefusal } from "../../src/adapters/git/lock-words";
import { partedRefusal } from "../../src/adapters/git/resume-branch";
import { branchInWay } from "../../src/adapters/git/worktrees";
import { refusalText } from "../../src/cli/refusal-text";
import { main } from "../../src/cli/main";
import { parseArgs } from "../../src/cli/target-options";
import type { CliIo } from "../../src/cli/command";
import {
  badTicket,
  claimedElsewhere,
  claimedLocally,
  heldByExpiredLease,
  heldHereWithoutRun,
  notAWriter,
  raceLost,
  runDirMismatch,
} from "../../src/core/claims/refusals";
import type { TicketReading } from "../../src/core/claims/ticket-reading";
import { nothingToResume } from "../../src/core/claims/ended-claim";
import { parseTicketInput } from "../../src/core/claims/marker";
import { standings, type LeaseRecord } from "../../src/core/claims/lease-standing";
import { parseConfig } from "../../src/app/config-load";
import { Refusal } from "../../src/core/errors";
import { lockRefusal } from "../../src/core/run/lock-refusal";
import type { RunJson } from "../../src/core/schemas/run-json";
import type { LockHolder } from "../../src/ports/workspace";
import { lease } from "./claims/claims-fixtures";

const NOW = new Date("2026-09-17T08:10:00.000Z");
const LEASE_URL = "https://github.com/acme/widgets/issues/12#issuecomment-901";
const LOCK_URL = "https://github.com/acme/widgets/blob/ticket-runner/lock/lock.json";
const record: LeaseRecord = {
  comment: { id: "901", url: LEASE_URL, author: "bob", createdAt: "2026-09-17T08:00:00Z", updatedAt: "2026-09-17T08:00:00Z" },
  lease: lease(),
  finished: false,
};
const run: RunJson = {
  version: 1,
  repo: "acme/widgets",
  issue: 7,
  host: { id: "host-y", name: "y", kind: "workstation" },
  session: "session-y-123456",
  run: "run-y",
  pid: 4242,
  startedAt: "2026-09-17T08:00:00.000Z",
  holder: "person",
  commentId: null,
  worktree: null,
  branch: null,
  offline: false,
};
// bob's lease 901, superseded by boss's take-over (902), which boss then released.
const ISSUE_URL = "https://github.com/acme/widgets/issues/12";
const taken: LeaseRecord = { ...record, lease: lease({ state: "superseded", supersededBy: "bbbbbbbbbbbbbbbb" }) };
const taker: LeaseRecord = {
  comment: { id: "902", url: `${ISSUE_URL}#issuecomment-902`, author: "boss", createdAt: "2026-09-17T08:05:00Z", updatedAt: "2026-09-17T08:06:00Z" },
  lease: lease({
    user: "boss",
    host: { id: "host-b", name: "b", kind: "workstation" },
    holder: "person",
    expiresAt: null,
    nonce: "bbbbbbbbbbbbbbbb",
    claimedAt: "2026-09-17T08:05:00.000Z",
    state: "released",
    takeover: { from: "aaaaaaaaaaaaaaaa", kind: "take-over", at: "2026-09-17T08:05:00.000Z" },
  }),
  finished: false,
};
const reading: TicketReading = {
  issue: { number: 12, title: "t", body: "", state: "open", labels: ["ready-for-agent"], assignees: [], url: ISSUE_URL },
  comments: [],
  viewer: "bob",
  records: [taken, taker],
  ignored: [],
  standing: standings([taken, taker], NOW),
};
const holder: LockHolder = {
  host: { id: "host-z", name: "build-7", kind: "cloud" },
  pid: 5151,
  command: "ticket-runner run",
  runId: "run-z",
  startedAt: "2026-09-17T07:55:00.000Z",
  processStartTime: null,
};
// The refusal builders below only read root and remote; they never run git.
const repo: RepoContext = { git: {} as GitRunner, root: "/src/widgets", remote: "origin", net: {} as RemoteGit };

/** A literal command a person can paste: `ticket-runner ...` or `git ...`, backticked or after a colon. */
const NEXT_COMMAND = /(`|: |Next: )(ticket-runner|git) [^`\n]+/;

interface Row {
  name: string;
  make: () => Refusal;
  /** Where there is a holder: the words that name it, and its link when one exists. */
  holder?: RegExp;
  link?: string;
}

const rows: Row[] = [
  { name: "claimed elsewhere", make: () => claimedElsewhere("acme/widgets", 12, record, NOW), holder: /@bob on host "x"/, link: LEASE_URL },
  { name: "claimed locally", make: () => claimedLocally("acme/widgets", 7, "/runs/issue-7", { kind: "ok", run }, false), holder: /pid 4242/ },
  {
    name: "claimed locally with an unreadable run.json",
    make: () => claimedLocally("acme/widgets", 7, "/runs/issue-7", { kind: "invalid", reason: "/runs/issue-7/run.json is empty" }, false),
    holder: /\/runs\/issue-7\/run\.json is empty/,
  },
  {
    name: "release of someone else's expired lease",
    make: () => heldByExpiredLease("acme/widgets", 12, record, NOW),
    holder: /@bob on host "x"/,
    link: LEASE_URL,
  },
  { name: "held here without a run", make: () => heldHereWithoutRun("acme/widgets", 12, record, NOW), holder: /@bob/, link: LEASE_URL },
  { name: "run dir of another ticket", make: () => runDirMismatch("acme/widgets", 12, "/runs/issue-12", run), holder: /acme\/widgets#7/ },
  { name: "lost the race", make: () => raceLost("acme/widgets", 12, record, "/runs/issue-12/superseded/x", NOW), holder: /@bob/, link: LEASE_URL },
  { name: "lost the race to a withdrawal", make: () => raceLost("acme/widgets", 12, null, null, NOW) },
  { name: "not a ticket number", make: () => badTicket("twelve") },
  { name: "not a writer", make: () => notAWriter("mallory", "read", "acme/widgets", "releasing a ticket", "ticket-runner release 12") },
  {
    name: "resume of an ended claim's leftover",
    make: () => nothingToResume("acme/widgets", 12, "/runs/issue-12", reading, { kind: "ok", run: { ...run, issue: 12, commentId: "901" } }),
    holder: /taken over by @boss on host "b"/,
    link: LEASE_URL,
  },
  {
    name: "resume with a run dir of no claim",
    make: () => nothingToResume("acme/widgets", 12, "/runs/issue-12", reading, { kind: "invalid", reason: "not JSON" }),
    holder: /\/runs\/issue-12/,
    link: ISSUE_URL,
  },
  {
    name: "run lock held on this Host",
    make: () => lockRefusal("running", holder),
    holder: /run run-z on the cloud host `build-7` \(host id host-z, pid 5151/,
  },
  { name: "run lock held elsewhere", make: () => lockRefusal("elsewhere", holder), holder: /`build-7`/ },
  { name: "workspace lock running here", make: () => runningRefusal(holder), holder: /run run-z on the cloud host `build-7`/ },
  {
    name: "workspace lock elsewhere",
    make: () => elsewhereRefusal(holder, "lock-host-z.json", "ticket-runner/locks/host-z", LOCK_URL),
    holder: /run run-z on the cloud host `build-7`/,
    link: LOCK_URL,
  },
  { name: "workspace lock unreadable", make: () => corruptLockRefusal("lock.json", "not JSON", "ticket-runner/lock", LOCK_URL), link: LOCK_URL },
  {
    name: "local branch in the way",
    make: () => branchInWay(repo, 12, "agent/12-fix", "/src/widgets/.worktrees/ticket-12"),
    holder: /worktree \/src\/widgets\/\.worktrees\/ticket-12/,
  },
  { name: "branches parted", make: () => partedRefusal(repo, 12, "agent/12-fix", "a".repeat(40), "b".repeat(40), null) },
  { name: "unknown option", make: () => catchRefusal(() => parseArgs(["--colour"], {})) },
  { name: "option without a value", make: () => catchRefusal(() => parseArgs(["--repo"], { values: ["--repo"] })) },
];

function catchRefusal(fn: () => unknown): Refusal {
  try {
    fn();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("refusals tell the way out", () => {
  for (const row of rows) {
    it(`${row.name}: says the next command${row.holder ? ", names the holder" : ""}${row.link ? " with its link" : ""}`, () => {
      const refusal = row.make();
      const text = refusalText(refusal);
      assert.match(text, NEXT_COMMAND, text);
      if (refusal.details.next)
        assert.ok(!/^(ask|wait|edit|use) /i.test(refusal.details.next), `details.next is a command, not advice: ${refusal.details.next}`);
      if (row.holder) assert.match(refusal.message, row.holder);
      if (row.link) {
        assert.equal(refusal.details.link, row.link);
        assert.ok(text.includes(row.link), text);
      }
    });
  }

  it("a bad config names the file, the key and the fix", () => {
    const refusal = catchRefusal(() => parseConfig({ lanes: "many" }, "/src/widgets/ticket-runner.json"));
    assert.equal(refusal.reason, "bad-config");
    assert.match(refusal.message, /\/src\/widgets\/ticket-runner\.json/);
    assert.match(refusal.message, /lanes/);
    assert.match(refusal.message, /Fix the file/);
  });

  it("the terminal text adds a link and a next command the message lacks, once", () => {
    const bare = new Refusal("not-open", "Gone.", { link: "https://example.test/1", next: "ticket-runner board" });
    assert.equal(refusalText(bare), "Gone.\nSee: https://example.test/1\nNext: ticket-runner board");
    const told = new Refusal("not-open", "Gone: https://example.test/1. Try `ticket-runner board`.", {
      link: "https://example.test/1",
      next: "ticket-runner board",
    });
    assert.equal(refusalText(told), told.message);
  });
});

describe("main() refusals", () => {
  function io(env: NodeJS.ProcessEnv = {}): CliIo & { errs: string[]; outs: string[] } {
    const errs: string[] = [];
    const outs: string[] = [];
    return { errs, outs, env, cwd: "/", err: (l) => errs.push(l), out: (l) => outs.push(l) };
  }

  it("--version and -v print the version, as `version` does", async () => {
    const cli = io();
    assert.equal(await main(["version"], cli), 0);
    assert.equal(await main(["--version"], cli), 0);
    assert.equal(await main(["-v"], cli), 0);
    assert.equal(cli.outs.length, 3);
    assert.equal(new Set(cli.outs).size, 1);
    assert.match(cli.outs[0]!, /^\d+\.\d+\.\d+/);
  });

  it("a ticket written #12 is ticket 12 (and #, ## or #x are still refused)", () => {
    assert.equal(parseTicketInput("#12"), 12);
    assert.equal(parseTicketInput("12"), 12);
    for (const bad of ["#", "##12", "#x", "#0", "12#"]) assert.equal(parseTicketInput(bad), null, bad);
  });

  it("an unknown command says how to list the commands and exits 2", async () => {
    const cli = io();
    assert.equal(await main(["frobnicate"], cli), 2);
    assert.match(cli.errs.join("\n"), /Unknown command "frobnicate"\. Run `ticket-runner help`/);
  });

  it("a command's refusal prints its next command and exits 2", async () => {
    const cli = io();
    assert.equal(await main(["run", "--lanes", "99"], cli), 2);
    assert.match(cli.errs.join("\n"), /--lanes must be a whole number.*`ticket-runner run --lanes 2`/);
  });

  it("a refusal never echoes the token", async () => {
    const token = "ghp_" + "A".repeat(36);
    const cli = io({ TICKET_RUNNER_TOKEN: token });
    assert.equal(await main([token], cli), 2);
    assert.equal(await main(["start", token], cli), 2);
    const said = cli.errs.join("\n");
    assert.ok(!said.includes(token), said);
    assert.match(said, /\*\*\*/);
  });
});
