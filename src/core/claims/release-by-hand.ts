/**
 * `ticket-runner release <n>` (and the board's Release): a person puts back a ticket THEY hold
 * (docs/adr/0120-release-only-what-you-hold.md). What counts as holding it, first match wins:
 *   1. a live lease of this user (any of their Hosts)           -> lease released, labels back
 *   2. a live lease of someone else                             -> refused, nothing changed
 *   3. no live lease; the earliest expired lease is this user's -> their Stranded claim: released
 *   4. no live lease; the earliest expired lease is someone's   -> refused, nothing changed
 *   5. no lease holds; in-progress on and this user assigned,
 *      and their own last lease was not taken over             -> their claim without a lease: labels back
 *   6. only a local claim on this Host (an --offline start)     -> moved aside, nothing on GitHub
 *   7. anything else                                            -> refused, nothing changed
 * A refusal writes nothing: no label, assignee, comment, or local file moves.
 */
import type { HeldClaim } from "../claim-gate";
import { Refusal } from "../errors";
import type { Lease } from "../schemas/lease";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import { endClaim, readyGoesBack, sameUser } from "./claim-endings";
import { compareClaims, isNewer, type LeaseRecord } from "./lease-standing";
import { claimedElsewhere, heldByExpiredLease, heldByNewerBuild, notYoursToRelease } from "./refusals";

export interface ReleaseReport {
  /** The lease comment marked released, if one of ours was. */
  leaseUrl: string | null;
  /** Where the local run went, if there was one. */
  archived: string | null;
  /** The worktree and branch this Host's run used (release keeps both), from its run.json. */
  worktree: string | null;
  branch: string | null;
  /** What was done, in words, for the CLI to print. */
  summary: string;
}

function earliest(records: LeaseRecord[]): LeaseRecord | null {
  return [...records].filter((r) => r.lease).sort((a, b) => compareClaims(a.lease as Lease, b.lease as Lease))[0] ?? null;
}

/** This user's most recent lease on the issue, whatever its state. */
function lastOwnLease(reading: TicketReading): LeaseRecord | null {
  const own = reading.records.filter((r) => r.lease && sameUser(r.comment.author, reading.viewer));
  return own.sort((a, b) => compareClaims(b.lease as Lease, a.lease as Lease))[0] ?? null;
}

/** True when this user's last lease was displaced by someone's take-over: the ticket was taken from them. */
function takenFrom(reading: TicketReading, own: LeaseRecord | null): boolean {
  if (!own?.lease) return false;
  return own.lease.state === "superseded" || reading.standing.displaced.includes(own);
}

export async function releaseByHand(ctx: ClaimContext, ticket: number, opts: { runDir?: string } = {}): Promise<ReleaseReport> {
  const dir = opts.runDir ?? ctx.options.runRoot.dirFor(ctx.options.tracker.repo, ticket);
  const reading = await ctx.read(ticket, { doing: "releasing a ticket", again: `ticket-runner release ${ticket}` });
  const { viewer, standing, issue } = reading;
  const { labels } = ctx.options;
  const now = ctx.now();
  const newer = standing.live.find(isNewer);
  if (newer) throw heldByNewerBuild(ctx.repoName, ticket, newer, "to release it");

  const mine = standing.live.find((r) => sameUser(r.comment.author, viewer)) ?? null;
  const other = standing.live.find((r) => !sameUser(r.comment.author, viewer)) ?? null;
  if (other && !mine) {
    const refusal = claimedElsewhere(ctx.repoName, ticket, other, now);
    throw new Refusal(
      "claimed-elsewhere",
      `${refusal.message.split("\n")[0]}\nLease: ${other.comment.url}\nOnly its holder releases it; nothing was changed. To take it over first: ticket-runner start ${ticket} --take-over`,
      { link: other.comment.url, next: `ticket-runner start ${ticket} --take-over` },
    );
  }
  const expired = mine ? null : earliest(standing.stale);
  if (expired && !sameUser(expired.comment.author, viewer)) throw heldByExpiredLease(ctx.repoName, ticket, expired, now);

  const local = await ctx.options.runRoot.read(dir);
  if (local.kind === "ok" && (local.run.issue !== ticket || local.run.repo.toLowerCase() !== ctx.repoName.toLowerCase())) {
    throw new Refusal(
      "run-dir-mismatch",
      `${dir}/run.json belongs to ${local.run.repo}#${local.run.issue}, not #${ticket}. Nothing was changed. Release the ticket it belongs to (\`ticket-runner release ${local.run.issue}\`), or pass the right --run-dir.`,
      { path: dir, next: `ticket-runner release ${local.run.issue}` },
    );
  }
  const held = mine ?? expired;
  const ownLast = lastOwnLease(reading);
  const assigned = issue.assignees.some((a) => sameUser(a, viewer));
  const onBoard = !held && issue.labels.includes(labels.inProgress) && assigned && !takenFrom(reading, ownLast);
  const offlineHere = local.kind === "ok" && local.run.commentId === null && local.run.host.id === ctx.options.host.id;
  if (!held?.lease && !onBoard && !offlineHere) {
    throw notYoursToRelease({ repo: ctx.repoName, ticket, reading, labels, ownLast, localDir: local.kind === "none" ? null : dir, now });
  }

  const readyBack = await readyGoesBack(ctx, ticket, reading);
  const ready = readyBack ? `${labels.ready} on` : `${labels.ready} not put back (no writer applied it; a writer labels it if agents should take it)`;
  let summary: string;
  if (held?.lease) {
    const claim: HeldClaim = { ticket, commentId: held.comment.id, commentUrl: held.comment.url, lease: held.lease, runDir: dir };
    await endClaim(ctx, claim, "released", reading);
    const which = held === expired ? `your expired lease ${held.comment.url}` : `lease ${held.comment.url}`;
    summary = `Released ${ctx.repoName}#${ticket}: ${which} marked released, ${ready}, ${labels.inProgress} off, ${viewer} unassigned.`;
  } else if (onBoard) {
    const hostLabel = ctx.hostLabel();
    await ctx.options.tracker.writeIssue(ticket, {
      ...(readyBack ? { addLabels: [labels.ready] } : {}),
      removeLabels: [labels.inProgress, ...(hostLabel && issue.labels.includes(hostLabel) ? [hostLabel] : [])],
      removeAssignees: [viewer],
    });
    summary = `Released ${ctx.repoName}#${ticket} on the board (your claim there had no lease): ${ready}, ${labels.inProgress} off, ${viewer} unassigned.`;
  } else {
    summary = `Released ${ctx.repoName}#${ticket} on this Host only: it was started --offline, so GitHub holds no claim of it and nothing changed there.`;
  }
  const worktree = local.kind === "ok" ? local.run.worktree : null;
  const branch = local.kind === "ok" ? local.run.branch : null;
  const archived =
    local.kind === "none" ? null : await ctx.options.runRoot.moveAside(dir, { reason: "released by hand", at: now.toISOString(), by: ctx.session });
  return { leaseUrl: held?.comment.url ?? null, archived, worktree, branch, summary: archived ? `${summary}\nLocal run moved to ${archived}` : summary };
}
