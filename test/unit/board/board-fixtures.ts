/** Builders for board unit tests: leases, issues and local claims with sensible defaults. */
import type { Lease } from "../../../src/core/schemas/lease";
import type { LeaseRecord } from "../../../src/core/claims/lease-standing";
import type { BoardInput, BoardIssue, LocalClaim } from "../../../src/core/board/types";

export const NOW = new Date("2026-03-01T12:00:00.000Z");
export const HERE = { id: "host-desk", name: "desk", kind: "workstation" as const };
export const LAPTOP = { id: "host-laptop-2", name: "laptop-2", kind: "workstation" as const };
export const REPO = "acme/shop";

export function minutes(n: number): string {
  return new Date(NOW.getTime() + n * 60_000).toISOString();
}

let nonce = 0;
export function lease(issue: number, over: Partial<Lease> = {}): Lease {
  nonce += 1;
  return {
    version: 1,
    repo: REPO,
    issue,
    host: HERE,
    session: "s-1",
    run: "run-1",
    holder: "machine",
    user: "ana",
    claimedAt: minutes(-20),
    expiresAt: minutes(25),
    nonce: `nonce-${String(nonce).padStart(4, "0")}`,
    state: "claimed",
    ...over,
  };
}

export function reading(l: Lease, commentId = String(4_294_967_296 + l.issue), updatedAt = minutes(-5)): LeaseRecord {
  const url = `https://github.com/${REPO}/issues/${l.issue}#issuecomment-${commentId}`;
  return { lease: l, finished: l.state === "finished", comment: { id: commentId, url, author: l.user, createdAt: l.claimedAt, updatedAt } };
}

export function issue(n: number, over: Partial<BoardIssue> = {}): BoardIssue {
  return {
    number: n,
    title: `Ticket ${n}`,
    url: `https://github.com/${REPO}/issues/${n}`,
    labels: ["ready-for-agent"],
    assignees: [],
    readings: [],
    ignored: [],
    ...over,
  };
}

export function local(n: number, over: Partial<LocalClaim> = {}): LocalClaim {
  return {
    issue: n,
    runDir: `/runs/acme__shop/issue-${n}`,
    run: {
      version: 1,
      repo: REPO,
      issue: n,
      host: HERE,
      session: "s-1",
      run: "run-1",
      pid: 4242,
      startedAt: minutes(-20),
      holder: "machine",
      commentId: null,
      worktree: `/work/shop/.worktrees/ticket-${n}`,
      branch: `agent/${n}-x`,
      offline: false,
    },
    alive: true,
    worktree: `/work/shop/.worktrees/ticket-${n}`,
    hasTranscript: true,
    ...over,
  };
}

export function input(issues: BoardIssue[], locals: LocalClaim[] = []): BoardInput {
  return {
    repo: REPO,
    viewer: "ana",
    host: HERE,
    labels: { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" },
    issues,
    local: locals,
    now: NOW,
  };
}

const claimed = { labels: ["in-progress"], assignees: ["ana"] };

/** One ticket in each state, numbered 1..N; the in-host and integration tests seed the same set. */
export function oneOfEach(): BoardInput {
  return input(
    [
      issue(1, { ...claimed, readings: [reading(lease(1, { state: "running", stage: "implement", stageStartedAt: minutes(-12) }))] }),
      issue(2, { ...claimed, assignees: ["bob"], readings: [reading(lease(2, { host: LAPTOP, user: "bob", expiresAt: minutes(31) }))] }),
      issue(3, { ...claimed, assignees: ["bob"], readings: [reading(lease(3, { host: LAPTOP, user: "bob", expiresAt: minutes(-120) }))] }),
      issue(4),
      issue(5, { labels: ["ready-for-human"] }),
      issue(6, { ...claimed, readings: [reading(lease(6, { state: "running", stage: "verify" }))] }),
      issue(7, { ...claimed, assignees: ["cy"], readings: [reading(lease(7, { holder: "person", user: "cy", host: LAPTOP, expiresAt: null }))] }),
    ],
    [local(1), local(6, { alive: false })],
  );
}
