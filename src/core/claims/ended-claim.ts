/**
 * A run directory on this Host whose claim has ended (docs/adr/0125-a-run-directory-outlives-its-claim.md).
 *
 * `run.json` names the lease comment it was made for. When that lease is on the issue and holds
 * nothing any more (taken over, released, handed off, finished, race-yielded), the directory is a
 * leftover: `resume` cannot re-enter it (there is no claim to continue) and, before this rule,
 * `start` refused it as "already has a run" and pointed to `resume`: a loop. A leftover whose
 * process is not a running Run is moved aside by `start` (kept in superseded/<timestamp>/, never
 * deleted); one a Run on this Host still has open is refused with the way to stop that Run.
 */
import type { RunJsonRead } from "../../ports/run-root";
import { Refusal } from "../errors";
import type { RunJson } from "../schemas/run-json";
import type { ClaimContext } from "./claim-context";
import type { TicketReading } from "./ticket-reading";
import type { LeaseRecord } from "./lease-standing";
import { claimFate, runDirMismatch } from "./refusals";

/** The lease `run` was made for, when it is on the issue and is neither live nor stale; else null. */
function endedClaimOf(reading: TicketReading, run: RunJson): LeaseRecord | null {
  if (run.commentId === null) return null;
  const rec = reading.records.find((r) => r.comment.id === run.commentId);
  if (!rec) return null;
  // Absent is not proof (the lease may not be visible yet): only a lease that says it ended counts.
  if (reading.standing.live.includes(rec) || reading.standing.stale.includes(rec)) return null;
  return rec;
}

/** "an earlier claim of yours (<lease>), which was taken over by …": the words both doors print. */
function endedClaimWords(reading: TicketReading, rec: LeaseRecord): string {
  const whose = rec.comment.author.toLowerCase() === reading.viewer.toLowerCase() ? "of yours" : `of @${rec.comment.author}`;
  return `an earlier claim ${whose} (${rec.comment.url}), which ${claimFate(reading.records, rec)}`;
}

/**
 * A machine Run on this Host that still runs has the directory open: moving it would pull it from
 * under that Run (it rewrites run.json). It stands down at its next lease check by itself.
 */
async function stillRunning(ctx: ClaimContext, run: RunJson): Promise<boolean> {
  if (run.holder !== "machine" || run.session === ctx.session) return false;
  return ctx.options.isAlive ? ctx.options.isAlive(run) : true;
}

export interface SetAside {
  /** Where the leftover went: `<run dir>/superseded/<timestamp>/`. */
  path: string;
  /** One line saying what it held, what became of that claim and where it went. */
  note: string;
}

/**
 * `start` (and a Run's claim) of a ticket whose run directory here is a leftover of an ended claim:
 * moves it aside and says so, or refuses when a Run here still has it open. Null when `run` is not
 * such a leftover (the caller's other rules apply).
 */
export async function setAsideEndedRun(ctx: ClaimContext, reading: TicketReading, ticket: number, dir: string, run: RunJson): Promise<SetAside | null> {
  const ended = endedClaimOf(reading, run);
  if (!ended) return null;
  const words = endedClaimWords(reading, ended);
  if (await stillRunning(ctx, run)) {
    const next = "ticket-runner stop";
    throw new Refusal(
      "claimed-locally",
      [
        `${ctx.repoName}#${ticket}: this Host's run directory ${dir} holds ${words}.`,
        `A Run on this Host still has it open (session ${run.session.slice(0, 8)}, pid ${run.pid}); it stands down at its next lease check and moves the directory aside itself. Nothing was changed.`,
        `To stop that Run now: \`${next}\` (in VS Code: Ticket Runner: Stop), then \`ticket-runner start ${ticket}\`.`,
      ].join("\n"),
      { path: dir, link: ended.comment.url, next },
    );
  }
  const path = await ctx.options.runRoot.moveAside(dir, {
    reason: `its claim had ended: ${ended.lease?.state ?? "finished"} (${ended.comment.url})`,
    at: ctx.now().toISOString(),
    by: ctx.session,
  });
  if (!path) return null;
  ctx.options.log.info("moved aside a run directory whose claim had ended", { ticket, lease: ended.comment.url, archived: path });
  return { path, note: `This Host's run directory held ${words}. Nothing points to it any more, so it was moved to ${path} (kept, nothing deleted).` };
}

/**
 * `resume` of a ticket this user holds no claim of (from this Host). Its next command must not
 * send the person back here: `start` sets aside a leftover of an ended claim by itself, but refuses
 * (as "a run already here") a run.json it cannot place, so for that one the way out is the `mv`.
 */
export function nothingToResume(repo: string, ticket: number, dir: string, reading: TicketReading, local: RunJsonRead): Refusal {
  const head = `${repo}#${ticket} holds no claim of yours from this Host.`;
  const start = `ticket-runner start ${ticket}`;
  if (local.kind === "none") return new Refusal("not-ready", `${head} Start it instead: ${start}`, { next: start });
  if (local.kind === "ok" && (local.run.issue !== ticket || local.run.repo.toLowerCase() !== repo.toLowerCase()))
    return runDirMismatch(repo, ticket, dir, local.run);
  const ended = local.kind === "ok" ? endedClaimOf(reading, local.run) : null;
  if (ended) {
    return new Refusal(
      "not-ready",
      `${head} This Host's run directory ${dir} holds ${endedClaimWords(reading, ended)}. Starting moves that directory aside (kept) and claims the ticket anew: ${start}`,
      { next: start, link: ended.comment.url, path: dir },
    );
  }
  const what =
    local.kind === "invalid"
      ? `its run.json cannot be read: ${local.reason}`
      : local.run.commentId === null
        ? `its run.json (session ${local.run.session.slice(0, 8)}, host "${local.run.host.name}") has no lease`
        : `its run.json names lease comment ${local.run.commentId}, which is not on the issue`;
  const setAside = `mv ${dir} ${dir}.old`;
  return new Refusal(
    "not-ready",
    `${head} This Host's run directory ${dir} belongs to no claim GitHub shows (${what}), and it stops a new start here. Nothing was changed. Once nothing uses it, set it aside (\`${setAside}\`), then start: \`${start}\`.`,
    { next: `${setAside} && ${start}`, path: dir, link: reading.issue.url },
  );
}
