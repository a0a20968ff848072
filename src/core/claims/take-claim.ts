/**
 * The claim, in order (docs/claims.md, "The order of a claim"; ADR 0380):
 *   1. read the remote claims            (1 request: issue + every comment + label events + body edits + viewer)
 *   2. refuse a live claim held by someone else
 *   3. take the local claim              (exclusive create of run.json)
 *   4. write board claim + lease, and read every lease back in the same request
 *                                        (1 request: one GraphQL document whose last mutation selects the issue)
 *   5. the claim whose comment landed first holds the ticket; a loser, or a claim on a ticket closed,
 *      handed off or finished meanwhile, stands down. The claim's next read waits a settle after
 *      the write and judges it again (read-back.ts).
 */
import type { IssueThread, IssueWrite, TrackerComment, TrackerIssue } from "../../ports/tracker";
import type { HeldClaim } from "../claim-gate";
import { Failure, GitHubRateLimit, Refusal } from "../errors";
import { LEASE_VERSION, type Lease } from "../schemas/lease";
import type { RunJson } from "../schemas/run-json";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import { setAsideEndedRun, type SetAside } from "./ended-claim";
import { sameUser, standDown } from "./claim-endings";
import { leavingHostLabels } from "./host-labels";
import { archiveTail, renderLeaseComment } from "./lease-comment";
import { isNewer, type LeaseRecord } from "./lease-standing";
import { readBack, readBackFromWrite } from "./read-back";
import { judge, readHeld, yieldNow } from "./lifecycle";
import {
  claimRateLimited,
  claimedElsewhere,
  claimedLocally,
  heldByNewerBuild,
  heldHereWithoutRun,
  overtakenMeanwhile,
  raceLost,
  runDirMismatch,
} from "./refusals";

export interface TakeOptions {
  /** Displace live claims held by others (a person's explicit --take-over; never a machine's). */
  takeOver?: boolean;
  /** --run-dir: use this run directory instead of the default one. */
  runDir?: string;
  /** A ticket this user already holds on the board (Stranded, no lease left): skip the ready-label check. */
  adopting?: boolean;
}

export interface ClaimWon {
  claim: HeldClaim;
  issue: TrackerIssue;
  /** The comments as the read-back saw them. */
  comments: TrackerComment[];
  /** Leases this claim displaced (take-over or takeover-stale). */
  displaced: LeaseRecord[];
  /** Where a displaced local run was moved (take-over), if there was one. */
  archived: string | null;
  /** This Host's leftover run directory of an ended claim, moved aside before claiming (ADR 0125). */
  setAside: SetAside | null;
  viewer: string;
}

/** When a claim decided by its write's own answer may be judged again by a read that lags (HeldClaim.confirmAfter). */
export function settledAt(ctx: ClaimContext): number {
  return ctx.now().getTime() + ctx.options.lease.settleMs;
}

export function isMine(ctx: ClaimContext, rec: LeaseRecord, viewer: string): boolean {
  return !!rec.lease && sameUser(rec.comment.author, viewer) && rec.lease.host.id === ctx.options.host.id;
}

function namesTicket(ctx: ClaimContext, run: RunJson, ticket: number): boolean {
  return run.issue === ticket && run.repo.toLowerCase() === ctx.repoName.toLowerCase();
}

export function newRunJson(ctx: ClaimContext, ticket: number, extra: Partial<RunJson> = {}): RunJson {
  return {
    version: 1,
    repo: ctx.repoName,
    issue: ticket,
    host: ctx.options.host,
    session: ctx.session,
    run: ctx.options.runId,
    pid: ctx.options.pid,
    startedAt: ctx.now().toISOString(),
    holder: ctx.options.holder,
    commentId: null,
    worktree: null,
    branch: null,
    offline: false,
    ...extra,
  };
}

async function checkReady(ctx: ClaimContext, reading: TicketReading, ticket: number): Promise<void> {
  const ready = ctx.options.labels.ready;
  if (!reading.issue.labels.includes(ready)) {
    throw new Refusal(
      "not-ready",
      `${ctx.repoName}#${ticket} is not labelled ${ready}, so a Run does not take it. A person can: ticket-runner start ${ticket}`,
    );
  }
  const { trusted, actor, editedBy } = await ctx.trust.readyLabelTrusted(ctx.options.tracker, ticket, ready, reading);
  if (editedBy) {
    throw new Refusal(
      "untrusted",
      `${ctx.repoName}#${ticket}'s body was edited by ${editedBy}, who has no write access, after ${actor} applied ${ready}: no writer approved this text. A writer who has read it applies ${ready} again (${reading.issue.url}), or a person starts it: \`ticket-runner start ${ticket}\`.`,
      { link: reading.issue.url, next: `ticket-runner start ${ticket}` },
    );
  }
  if (!trusted) {
    throw new Refusal(
      "untrusted",
      `${ctx.repoName}#${ticket} carries ${ready}, but it was applied by ${actor ?? "nobody on record"}, who has no write access: the label is ignored. A writer can re-apply it (${reading.issue.url}), or a person starts it: \`ticket-runner start ${ticket}\`.`,
      { link: reading.issue.url, next: `ticket-runner start ${ticket}` },
    );
  }
}

/**
 * Only a machine's run.json from this Host whose process is gone, with no lease of ours on the
 * issue. A person's `start` exits once its worktree is cut, so its run.json always outlives its
 * pid and is never taken this way: `ticket-runner resume` is how a person gets back in.
 */
async function leftByDeadRun(
  ctx: ClaimContext,
  existing: Awaited<ReturnType<ClaimContext["options"]["runRoot"]["read"]>>,
  leaseOfMine: boolean,
): Promise<boolean> {
  if (leaseOfMine || existing.kind !== "ok" || ctx.options.holder !== "machine") return false;
  const run = existing.run;
  if (run.holder !== "machine" || run.host.id !== ctx.options.host.id || run.session === ctx.session || !ctx.options.isAlive) return false;
  return !(await ctx.options.isAlive(run));
}

/** Steps 1-3: everything before the first write. Returns the reading and the leases to displace. */
async function prepare(ctx: ClaimContext, ticket: number, opts: TakeOptions, dir: string) {
  const reading = await ctx.read(ticket, { doing: "claiming a ticket", again: `ticket-runner start ${ticket}` });
  const { viewer, standing } = reading;
  if (reading.issue.state !== "open") {
    throw new Refusal(
      "not-open",
      `${ctx.repoName}#${ticket} is closed: ${reading.issue.url}. Reopen it first if there is more to do, then \`ticket-runner start ${ticket}\`.`,
      { link: reading.issue.url, next: `ticket-runner start ${ticket}` },
    );
  }
  const newer = standing.live.find(isNewer);
  if (newer) throw heldByNewerBuild(ctx.repoName, ticket, newer, opts.takeOver ? "to take it over" : "to claim it");
  const othersLive = standing.live.filter((r) => !isMine(ctx, r, viewer));
  const mineLive = standing.live.filter((r) => isMine(ctx, r, viewer));
  const now = ctx.now();
  if (othersLive[0] && !opts.takeOver) throw claimedElsewhere(ctx.repoName, ticket, othersLive[0], now);
  const existing = await ctx.options.runRoot.read(dir);
  if (existing.kind === "ok" && !namesTicket(ctx, existing.run, ticket)) throw runDirMismatch(ctx.repoName, ticket, dir, existing.run);
  if (mineLive[0] && !opts.takeOver) {
    if (existing.kind !== "none") throw claimedLocally(ctx.repoName, ticket, dir, existing, !!opts.runDir);
    throw heldHereWithoutRun(ctx.repoName, ticket, mineLive[0], now);
  }
  if (ctx.options.holder === "machine" && standing.stale.length === 0 && !opts.adopting) await checkReady(ctx, reading, ticket);
  const displaced = opts.takeOver ? [...othersLive, ...mineLive, ...standing.stale] : [...standing.stale];
  let archived: string | null = null;
  if (opts.takeOver && existing.kind !== "none") {
    // An unreadable run.json names no holder to protect; it is archived like any other, never deleted.
    const reason = existing.kind === "invalid" ? `take-over of a run directory whose run.json cannot be used: ${existing.reason}` : "take-over";
    archived = await ctx.options.runRoot.moveAside(dir, { reason, at: now.toISOString(), by: ctx.session });
  }
  let setAside: SetAside | null = null;
  if (!opts.takeOver && existing.kind === "ok") setAside = await setAsideEndedRun(ctx, reading, ticket, dir, existing.run);
  if (!setAside && !opts.takeOver && (await leftByDeadRun(ctx, existing, mineLive.length > 0))) {
    // A Run killed between its local claim and its lease left run.json and nothing on the board.
    // This Run holds the Target lock, so that Run is gone: move its files aside, never delete them.
    archived = await ctx.options.runRoot.moveAside(dir, {
      reason: "left by a Run on this Host that died before its lease was written",
      at: now.toISOString(),
      by: ctx.session,
    });
  }
  const created = await ctx.options.runRoot.create(dir, newRunJson(ctx, ticket));
  if (created.kind === "exists") {
    const cur = created.current;
    if (cur.kind === "ok" && !namesTicket(ctx, cur.run, ticket)) throw runDirMismatch(ctx.repoName, ticket, dir, cur.run);
    throw claimedLocally(ctx.repoName, ticket, dir, cur, !!opts.runDir);
  }
  return { reading, displaced, archived, setAside, takeOverLive: opts.takeOver === true && othersLive.length + mineLive.length > 0 };
}

function leaseFor(ctx: ClaimContext, ticket: number, viewer: string, displaced: LeaseRecord[], takeOverLive: boolean): Lease {
  const now = ctx.now();
  const first = displaced[0];
  const rest = displaced.slice(1).flatMap((r) => (r.lease ? [r.lease.nonce] : []));
  return {
    version: LEASE_VERSION,
    repo: ctx.repoName,
    issue: ticket,
    host: ctx.options.host,
    session: ctx.session,
    run: ctx.options.runId,
    holder: ctx.options.holder,
    user: viewer,
    claimedAt: now.toISOString(),
    expiresAt: ctx.expiresAt(now),
    nonce: ctx.nonce(),
    state: "claimed",
    ...(first?.lease
      ? {
          takeover: {
            from: first.lease.nonce,
            kind: takeOverLive ? "take-over" : "takeover-stale",
            at: now.toISOString(),
            fromComment: first.comment.id,
            ...(rest.length ? { also: rest } : {}),
          },
        }
      : {}),
  } satisfies Lease;
}

function claimWrite(ctx: ClaimContext, reading: TicketReading, lease: Lease, displaced: LeaseRecord[]): IssueWrite {
  const { labels } = ctx.options;
  const hostLabel = ctx.hostLabel();
  const write: IssueWrite = {
    addLabels: [labels.inProgress, ...(hostLabel ? [hostLabel] : [])].filter((l) => !reading.issue.labels.includes(l)),
    removeLabels: [
      ...(reading.issue.labels.includes(labels.ready) ? [labels.ready] : []),
      // The displaced leases end with this write: so do their Hosts' labels (a person's taken-over claim kept its own).
      ...leavingHostLabels(
        ctx,
        reading.issue.labels,
        displaced.flatMap((d) => (d.lease ? [d.lease] : [])),
        reading.standing.live,
      ),
    ],
    addAssignees: reading.issue.assignees.some((a) => sameUser(a, reading.viewer)) ? [] : [reading.viewer],
    comment: { body: renderLeaseComment(lease) },
  };
  // The issue's assignees are the current holder only: a displaced holder's user goes in the same
  // write, unless another live claim this write leaves standing is theirs.
  const staying = reading.standing.live.filter((r) => !displaced.includes(r));
  const leaving = reading.issue.assignees.filter(
    (a) => !sameUser(a, reading.viewer) && displaced.some((d) => sameUser(d.comment.author, a)) && !staying.some((r) => sameUser(r.comment.author, a)),
  );
  if (leaving.length) write.removeAssignees = leaving;
  const edits = displaced.flatMap((d) =>
    d.lease
      ? [{ id: d.comment.id, body: renderLeaseComment({ ...d.lease, state: "superseded", supersededBy: lease.nonce }, archiveTail(d.comment.body ?? "")) }]
      : [],
  );
  if (edits.length) write.editComments = edits;
  return write;
}

/**
 * A person's claim (`start`, `claim`) has no Run whose next read would judge it again a settle after
 * its write: it reads once more itself before it is handed over (3 round trips; ADR 0380).
 */
async function confirmForAPerson(ctx: ClaimContext, claim: HeldClaim): Promise<void> {
  if (claim.confirmAfter === undefined) return;
  const back = await readHeld(ctx, claim);
  const verdict = judge(claim, back);
  if (verdict.kind === "held") return;
  const { archived } = await yieldNow(ctx, claim, back, verdict);
  throw raceLost(ctx.repoName, claim.ticket, verdict.winner, archived, ctx.now());
}

export async function takeClaim(ctx: ClaimContext, ticket: number, opts: TakeOptions = {}): Promise<ClaimWon> {
  try {
    return await claimOnce(ctx, ticket, opts);
  } catch (error) {
    // Before the write, nothing was claimed; after it, claimOnce said what landed.
    if (error instanceof GitHubRateLimit) throw claimRateLimited(ctx.repoName, ticket, error, null, ctx.now());
    throw error;
  }
}

async function claimOnce(ctx: ClaimContext, ticket: number, opts: TakeOptions): Promise<ClaimWon> {
  if (opts.takeOver && ctx.options.holder === "machine") {
    throw new Refusal("bad-input", `Take-over is a person's decision and never runs unattended: use \`ticket-runner start ${ticket} --take-over\` yourself.`, {
      next: `ticket-runner start ${ticket} --take-over`,
    });
  }
  const dir = opts.runDir ?? ctx.options.runRoot.dirFor(ctx.options.tracker.repo, ticket);
  const { reading, displaced, archived, setAside, takeOverLive } = await prepare(ctx, ticket, opts, dir);
  const viewer = reading.viewer;
  let lease: Lease | null = null;
  let written: TrackerComment | null = null;
  try {
    lease = leaseFor(ctx, ticket, viewer, displaced, takeOverLive);
    let writeError: unknown = null;
    let answer: IssueThread | null = null;
    let confirmAfter: number | undefined;
    try {
      ({ comment: written, thread: answer } = await ctx.options.tracker.writeIssueReadBack(ticket, claimWrite(ctx, reading, lease, displaced)));
      confirmAfter = settledAt(ctx);
    } catch (error) {
      // The write may have landed even so (a lost response): a settled read-back decides.
      writeError = error;
      ctx.options.log.warn("claim write failed; reading back to see whether it landed", { ticket, error: String(error) });
    }
    const got = answer ? await readBackFromWrite(ctx, ticket, lease, written, answer, reading) : await readBack(ctx, ticket, lease, written, reading);
    if (got.kind === "missing") {
      if (writeError instanceof GitHubRateLimit) throw writeError;
      throw new Failure(
        "github",
        `Could not write the claim on ${ctx.repoName}#${ticket}: ${String(writeError ?? "the lease did not appear")}. Nothing was started; try again.`,
      );
    }
    const { back, mine } = got;
    if (got.kind !== "won") {
      const winner = got.kind === "lost" ? got.winner : null;
      const why = got.kind === "lost" ? "race-yielded" : got.why;
      const { archived: moved } = await standDown(ctx, { ticket, viewer, mine: lease, commentId: mine.comment.id, reading: back, winner, runDir: dir, why });
      if (got.kind === "overtaken") throw overtakenMeanwhile(ctx.repoName, ticket, got.why, got.link, moved);
      throw raceLost(ctx.repoName, ticket, winner, moved, ctx.now());
    }
    const run = await ctx.options.runRoot.read(dir);
    if (run.kind === "ok") await ctx.options.runRoot.update(dir, { ...run.run, commentId: mine.comment.id });
    const claim: HeldClaim = {
      ticket,
      commentId: mine.comment.id,
      commentUrl: mine.comment.url,
      lease,
      runDir: dir,
      ...(confirmAfter ? { confirmAfter } : {}),
    };
    if (ctx.options.holder === "person") await confirmForAPerson(ctx, claim);
    ctx.options.log.info("claimed", { ticket, lease: mine.comment.url, holder: ctx.options.holder, takeover: lease.takeover?.kind ?? null });
    return {
      claim,
      issue: back.issue,
      comments: back.comments,
      displaced,
      archived,
      setAside,
      viewer,
    };
  } catch (error) {
    if (error instanceof Refusal && error.reason === "race-yielded") throw error;
    // Anything else after the local claim: give the local claim back (moved aside, never deleted).
    await ctx.options.runRoot.moveAside(
      dir,
      { reason: `claim failed: ${String(error).slice(0, 200)}`, at: ctx.now().toISOString(), by: ctx.session },
      { ifSession: ctx.session },
    );
    if (error instanceof GitHubRateLimit) throw claimRateLimited(ctx.repoName, ticket, error, written, ctx.now());
    throw error;
  }
}
