/**
 * Seeds a sandbox repository with one ticket in each board state, written the way the product
 * writes them (real lease comments by real sandbox users), plus a run root holding this Host's
 * local claims. Used by the board's integration tests, in-host tests, screenshots and benchmark.
 */
import { Octokit } from "@octokit/rest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { FsRunRoot } from "../../src/adapters/fs-run-root";
import { renderLeaseComment } from "../../src/core/claims/lease-comment";
import { LEASE_VERSION, type Lease } from "../../src/core/schemas/lease";
import type { RunJson } from "../../src/core/schemas/run-json";
import type { HostIdentity } from "../../src/ports/host";
import type { SandboxHandle } from "../../src/sandbox/start";

export const BOARD_OWNER = "acme";
export const BOARD_REPO = "shop";
export const LAPTOP: HostIdentity = { id: "ws-laptop-2", name: "laptop-2", kind: "workstation" };
/** A pid no process has (above Linux's default pid_max), for a local claim whose run died. */
export const DEAD_PID = 4_194_303;

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export function sandboxOctokit(apiUrl: string, token: string): Octokit {
  return new Octokit({ baseUrl: apiUrl, auth: token, log: quiet });
}

export interface SeedOptions {
  runRoot?: string;
  /** Also seed the markers the state table does not need: claimed here (no Stage yet), released, yielded. */
  everyMarker?: boolean;
}

export interface SeededBoard {
  repo: { owner: string; repo: string };
  tokens: Record<"ana" | "bob" | "cy" | "mallory", string>;
  runRoot: string;
  /** Ticket number by state. */
  tickets: Record<"runningHere" | "claimedElsewhere" | "stale" | "frontier" | "needsPerson" | "stranded" | "person" | "untrusted" | "finished", number> &
    Partial<Record<"claimedHere" | "released" | "yielded", number>>;
  /** Lease comment URLs by ticket number. */
  leaseUrls: Record<number, string>;
  /** When seeding began (ms since the epoch): every time in the leases is relative to it. */
  seededAt: number;
}

function minutesFromNow(m: number): string {
  return new Date(Date.now() + m * 60_000).toISOString();
}

function lease(issue: number, host: HostIdentity, over: Partial<Lease>): Lease {
  return {
    version: LEASE_VERSION,
    repo: `${BOARD_OWNER}/${BOARD_REPO}`,
    issue,
    host,
    session: `session-${issue}`,
    run: `run-${issue}`,
    holder: "machine",
    user: "ana",
    claimedAt: minutesFromNow(-30),
    expiresAt: minutesFromNow(15),
    nonce: randomBytes(8).toString("hex"),
    state: "claimed",
    ...over,
  };
}

/**
 * `here` is the board's Host identity: leases naming it are this Host's. The viewer is "ana".
 * Times carry half a minute of slack so the Run column reads the same a few seconds later.
 */
export async function seedBoard(sandbox: SandboxHandle, here: HostIdentity, opts: SeedOptions = {}): Promise<SeededBoard> {
  const seededAt = Date.now();
  const full = `${BOARD_OWNER}/${BOARD_REPO}`;
  await sandbox.admin.createRepo({
    owner: BOARD_OWNER,
    name: BOARD_REPO,
    files: { "README.md": "# shop\n" },
    labels: [{ name: "ready-for-agent" }, { name: "in-progress" }, { name: "ready-for-human" }],
  });
  const tokens = {
    ana: (await sandbox.admin.addUser({ login: "ana", repos: { [full]: "write" } })).token,
    bob: (await sandbox.admin.addUser({ login: "bob", repos: { [full]: "write" } })).token,
    cy: (await sandbox.admin.addUser({ login: "cy", repos: { [full]: "write" } })).token,
    mallory: (await sandbox.admin.addUser({ login: "mallory", repos: { [full]: "read" } })).token,
  };
  const as = (who: keyof typeof tokens): Octokit => sandboxOctokit(sandbox.apiUrl, tokens[who]);
  const admin = sandboxOctokit(sandbox.apiUrl, sandbox.adminToken);
  const leaseUrls: Record<number, string> = {};

  const open = async (title: string, labels: string[], assignees: string[] = []): Promise<number> =>
    (await admin.rest.issues.create({ owner: BOARD_OWNER, repo: BOARD_REPO, title, labels, assignees })).data.number;
  const post = async (who: keyof typeof tokens, l: Lease): Promise<void> => {
    const res = await as(who).rest.issues.createComment({ owner: BOARD_OWNER, repo: BOARD_REPO, issue_number: l.issue, body: renderLeaseComment(l) });
    leaseUrls[l.issue] = res.data.html_url;
  };

  const runningHere = await open("Add a discount code field to checkout", ["in-progress"], ["ana"]);
  await post("ana", lease(runningHere, here, { state: "running", stage: "implement", stageStartedAt: minutesFromNow(-12.5), expiresAt: minutesFromNow(40) }));
  const claimedElsewhere = await open("Show stock levels on the product page", ["in-progress"], ["bob"]);
  await post("bob", lease(claimedElsewhere, LAPTOP, { user: "bob", expiresAt: minutesFromNow(31.5) }));
  const stale = await open("Fix the rounding of VAT totals", ["in-progress"], ["bob"]);
  await post("bob", lease(stale, LAPTOP, { user: "bob", claimedAt: minutesFromNow(-200), expiresAt: minutesFromNow(-120.5) }));
  const frontier = await open("Sort orders by date, newest first", ["ready-for-agent"]);
  const needsPerson = await open("Migrate the cart to the new pricing API", ["ready-for-human"]);
  await post("ana", lease(needsPerson, here, { state: "handed-off" }));
  const stranded = await open("Retry failed webhook deliveries", ["in-progress"], ["ana"]);
  await post("ana", lease(stranded, here, { state: "running", stage: "verify", stageStartedAt: minutesFromNow(-50) }));
  const person = await open("Write the release notes for 2.0", ["in-progress"], ["cy"]);
  await post("cy", lease(person, LAPTOP, { user: "cy", holder: "person", expiresAt: null }));
  const untrusted = await open("Tidy the footer links", ["ready-for-agent"]);
  await post("mallory", lease(untrusted, LAPTOP, { user: "mallory" }));
  const finished = await open("Cache the category tree", ["ready-for-agent"]);
  await post("ana", lease(finished, LAPTOP, { state: "finished" }));

  const extra: Partial<Record<"claimedHere" | "released" | "yielded", number>> = {};
  if (opts.everyMarker) {
    extra.claimedHere = await open("Speed up the product search", ["in-progress"], ["ana"]);
    await post("ana", lease(extra.claimedHere, here, { claimedAt: minutesFromNow(-2.5) }));
    extra.released = await open("Add dark mode to the admin pages", ["ready-for-agent"]);
    await post("ana", lease(extra.released, LAPTOP, { state: "released" }));
    extra.yielded = await open("Email a receipt after checkout", ["ready-for-agent"]);
    await post("bob", lease(extra.yielded, LAPTOP, { user: "bob", state: "race-yielded" }));
  }

  const runRoot = opts.runRoot ?? mkdtempSync(join(tmpdir(), "board-runroot-"));
  const fs = new FsRunRoot(runRoot);
  const run = (issue: number, pid: number): RunJson => ({
    version: 1,
    repo: full,
    issue,
    host: here,
    session: `session-${issue}`,
    run: `run-${issue}`,
    pid,
    startedAt: minutesFromNow(-30),
    holder: "machine",
    commentId: null,
    worktree: null,
    branch: `agent/${issue}-x`,
    offline: false,
  });
  await fs.create(fs.dirFor({ owner: BOARD_OWNER, repo: BOARD_REPO }, runningHere), run(runningHere, process.pid));
  await fs.create(fs.dirFor({ owner: BOARD_OWNER, repo: BOARD_REPO }, stranded), run(stranded, DEAD_PID));
  if (extra.claimedHere) await fs.create(fs.dirFor({ owner: BOARD_OWNER, repo: BOARD_REPO }, extra.claimedHere), run(extra.claimedHere, process.pid));

  return {
    repo: { owner: BOARD_OWNER, repo: BOARD_REPO },
    tokens,
    runRoot,
    tickets: { runningHere, claimedElsewhere, stale, frontier, needsPerson, stranded, person, untrusted, finished, ...extra },
    leaseUrls,
    seededAt,
  };
}
