/**
 * Adopting a claim this user already holds from this Host (a Stranded ticket after a kill, or
 * `ticket-runner resume`): take the local claim again, rewrite the same lease in place (same nonce
 * and claimedAt: it is the same claim continuing), reading every lease back in the write's own
 * answer like any claim (ADR 0380), because a stale lease may have been taken over in the meantime.
 */
import { Refusal } from "../errors";
import type { HeldClaim } from "../claim-gate";
import type { Lease } from "../schemas/lease";
import type { RunJson } from "../schemas/run-json";
import type { ClaimContext } from "./claim-context";
import { nothingToResume } from "./ended-claim";
import { sameUser } from "./claim-endings";
import { leavingHostLabels } from "./host-labels";
import { archiveTail, renderLeaseComment } from "./lease-comment";
import { compareClaims, isNewer, rankClaims } from "./lease-standing";
import { judge, yieldNow } from "./lifecycle";
import { claimedElsewhere, claimedLocally, heldByNewerBuild, raceLost, runDirMismatch } from "./refusals";
import { isMine, newRunJson, settledAt, takeClaim, type ClaimWon } from "./take-claim";

export async function adoptClaim(ctx: ClaimContext, ticket: number, opts: { runDir?: string } = {}): Promise<ClaimWon> {
  const dir = opts.runDir ?? ctx.options.runRoot.dirFor(ctx.options.tracker.repo, ticket);
  const reading = await ctx.read(ticket, { doing: "resuming a claim", again: `ticket-runner resume ${ticket}` });
  const { viewer, standing, issue } = reading;
  const now = ctx.now();
  const newer = standing.live.find(isNewer);
  if (newer) throw heldByNewerBuild(ctx.repoName, ticket, newer, "to resume its claim");
  const ours = (r: (typeof standing.live)[number]) =>
    isMine(ctx, r, viewer) ||
    (!!ctx.options.adoptAcrossHosts && ctx.options.holder === "machine" && r.lease?.holder === "machine" && sameUser(r.comment.author, viewer));
  const mine = [...standing.live, ...standing.stale].filter(ours).sort((a, b) => compareClaims(a.lease as Lease, b.lease as Lease));
  const rec = mine[0];
  const rival = standing.live.find((r) => !ours(r));
  if (rival?.lease && (!rec?.lease || rankClaims(rival, rec) < 0)) throw claimedElsewhere(ctx.repoName, ticket, rival, now);
  if (!rec?.lease) {
    const heldOnBoard = issue.labels.includes(ctx.options.labels.inProgress) && issue.assignees.some((a) => sameUser(a, viewer));
    const local = await ctx.options.runRoot.read(dir);
    // A run started --offline holds only the local claim: going online writes its lease now.
    const offlineHere = local.kind === "ok" && local.run.issue === ticket && local.run.commentId === null && local.run.host.id === ctx.options.host.id;
    if (!heldOnBoard && !offlineHere) {
      throw nothingToResume(ctx.repoName, ticket, dir, reading, local);
    }
    if (offlineHere && local.kind === "ok") {
      const alive = ctx.options.isAlive ? await ctx.options.isAlive(local.run) : true;
      if (alive && local.run.session !== ctx.session) throw claimedLocally(ctx.repoName, ticket, dir, local, !!opts.runDir);
      await ctx.options.runRoot.moveAside(dir, { reason: "going online", at: now.toISOString(), by: ctx.session });
    }
    // A claim without a lease (board labels set by hand, or an offline start): a full claim, minus the ready check.
    const won = await takeClaim(ctx, ticket, { runDir: opts.runDir, adopting: true });
    if (offlineHere && local.kind === "ok") {
      const fresh = await ctx.options.runRoot.read(dir);
      if (fresh.kind === "ok") await ctx.options.runRoot.update(dir, { ...fresh.run, worktree: local.run.worktree, branch: local.run.branch });
    }
    return won;
  }

  const existing = await ctx.options.runRoot.read(dir);
  let carried: { worktree: string | null; branch: string | null; sessions?: RunJson["sessions"] } = { worktree: null, branch: null };
  if (existing.kind === "invalid") throw claimedLocally(ctx.repoName, ticket, dir, existing, !!opts.runDir);
  if (existing.kind === "ok") {
    const run = existing.run;
    if (run.issue !== ticket || run.repo.toLowerCase() !== ctx.repoName.toLowerCase()) throw runDirMismatch(ctx.repoName, ticket, dir, run);
    const alive = ctx.options.isAlive ? await ctx.options.isAlive(run) : true;
    if (alive && run.session !== ctx.session) throw claimedLocally(ctx.repoName, ticket, dir, existing, !!opts.runDir);
    // The sessions this Host noted for the claim go with it: a Run killed mid-Stage continues them (ADR 0452).
    carried = { worktree: run.worktree, branch: run.branch, ...(run.sessions ? { sessions: run.sessions } : {}) };
    await ctx.options.runRoot.moveAside(dir, { reason: "adopted by a new session", at: now.toISOString(), by: ctx.session });
  }
  const created = await ctx.options.runRoot.create(dir, newRunJson(ctx, ticket, { commentId: rec.comment.id, ...carried }));
  if (created.kind === "exists") throw claimedLocally(ctx.repoName, ticket, dir, created.current, !!opts.runDir);

  try {
    const lease: Lease = {
      ...rec.lease,
      session: ctx.session,
      run: ctx.options.runId,
      holder: ctx.options.holder,
      host: ctx.options.host,
      state: "claimed",
      stage: undefined,
      stageStartedAt: undefined,
      limitResetsAt: undefined,
      expiresAt: ctx.expiresAt(now),
      renewedAt: now.toISOString(),
    };
    const hostLabel = ctx.hostLabel();
    const written = await ctx.options.tracker.writeIssueReadBack(ticket, {
      addAssignees: issue.assignees.some((a) => sameUser(a, viewer)) ? [] : [viewer],
      addLabels: [ctx.options.labels.inProgress, ...(hostLabel ? [hostLabel] : [])].filter((l) => !issue.labels.includes(l)),
      removeLabels: [
        ...(issue.labels.includes(ctx.options.labels.ready) ? [ctx.options.labels.ready] : []),
        // Adopted across Hosts, the lease now names this Host: the old Host's label goes in the same write.
        ...leavingHostLabels(ctx, issue.labels, [rec.lease], standing.live),
      ],
      comment: { id: rec.comment.id, body: renderLeaseComment(lease, archiveTail(rec.comment.body ?? "")) },
    });
    // Judged on the write's own answer; the next read, a settle on, judges it again (ADR 0380).
    const claim: HeldClaim = {
      ticket,
      commentId: rec.comment.id,
      commentUrl: rec.comment.url,
      lease,
      runDir: dir,
      confirmAfter: settledAt(ctx),
      ...(carried.sessions ? { sessions: carried.sessions } : {}),
    };
    const back = await ctx.reading(ticket, written.thread, viewer);
    const verdict = judge(claim, back);
    if (verdict.kind === "yield") {
      const { archived: moved } = await yieldNow(ctx, claim, back, verdict);
      throw raceLost(ctx.repoName, ticket, verdict.winner, moved, ctx.now());
    }
    ctx.options.log.info("adopted", { ticket, lease: rec.comment.url });
    return { claim, issue: back.issue, comments: back.comments, displaced: [], archived: null, setAside: null, viewer };
  } catch (error) {
    if (error instanceof Refusal && error.reason === "race-yielded") throw error;
    await ctx.options.runRoot.moveAside(
      dir,
      { reason: `adopt failed: ${String(error).slice(0, 200)}`, at: ctx.now().toISOString(), by: ctx.session },
      { ifSession: ctx.session },
    );
    throw error;
  }
}
