/**
 * Every refusal the protocol gives: what happened, who holds what (with a link), the exact next
 * command. Callers branch on `reason`, never on these words.
 */
import type { RunJsonRead } from "../../ports/run-root";
import { sanitizeSentence } from "../board/sanitize";
import { Refusal, type GitHubRateLimit } from "../errors";
import type { RunJson } from "../schemas/run-json";
import type { TicketReading } from "./ticket-reading";
import type { LeaseRecord } from "./lease-standing";
import { LEASE_VERSION } from "../schemas/lease";

function when(iso: string): string {
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}

function minutesFrom(iso: string, now: Date): string {
  const m = Math.round((Date.parse(iso) - now.getTime()) / 60_000);
  return m >= 0 ? `in ${m} min` : `${-m} min ago`;
}

function resumeCommand(ticket: number, dir: string, customDir: boolean): string {
  return customDir ? `ticket-runner resume ${ticket} --run-dir ${dir}` : `ticket-runner resume ${ticket}`;
}

/** The parts every sentence about a holder is built from, so each sentence reads whole (ADR 0173). */
export interface HolderParts {
  /** `@bob on host "x" (machine, session 1a2b3c4d)`, or `@bob` for a finished record. */
  who: string;
  /** `2026-12-01 12:05:03 UTC`, or null for a record without a lease. */
  since: string | null;
  /** `its lease expires … (in 35 min)`, `its lease expired … (3 min ago)`, `it is a person's claim, which never expires`. */
  expiry: string | null;
}

export function holderParts(rec: LeaseRecord, now: Date): HolderParts {
  if (rec.newer !== undefined) return { who: `@${rec.comment.author} with a newer Ticket Runner (lease version ${rec.newer})`, since: null, expiry: null };
  const l = rec.lease;
  if (!l) return { who: `@${rec.comment.author} (a finished record)`, since: null, expiry: null };
  const expiry = !l.expiresAt
    ? "it is a person's claim, which never expires"
    : Date.parse(l.expiresAt) > now.getTime()
      ? `its lease expires ${when(l.expiresAt)} (${minutesFrom(l.expiresAt, now)})`
      : `its lease expired ${when(l.expiresAt)} (${minutesFrom(l.expiresAt, now)})`;
  // The host and session are whatever the lease's writer put there.
  return {
    who: sanitizeSentence(`@${rec.comment.author} on host "${l.host.name}" (${l.holder}, session ${l.session.slice(0, 8)})`),
    since: when(l.claimedAt),
    expiry,
  };
}

/** "@bob on host "x" (machine, session …), claimed since …; its lease expires …": a clause that ends a sentence. */
export function holderText(rec: LeaseRecord, now: Date): string {
  const p = holderParts(rec, now);
  return [p.since ? `${p.who}, since ${p.since}` : p.who, p.expiry].filter(Boolean).join("; ");
}

export function claimedElsewhere(repo: string, ticket: number, rec: LeaseRecord, now: Date): Refusal {
  const next = `ticket-runner start ${ticket} --take-over`;
  return new Refusal(
    "claimed-elsewhere",
    [
      `${repo}#${ticket} is claimed by ${holderText(rec, now)}.`,
      `Lease: ${rec.comment.url}`,
      `Read that comment first. To take the ticket over anyway (its run is archived, nothing deleted): ${next}`,
    ].join("\n"),
    { link: rec.comment.url, next },
  );
}

/** How a person updates Ticket Runner on a Host: in its clone (README, "Use it on your repository"). */
const UPDATE_COMMAND = "git pull && npm ci && npm run build";

/**
 * A lease a newer Ticket Runner wrote is live on the ticket: it may be a claim or a take-over, and
 * this build cannot read which, so it neither takes, takes over, adopts nor releases it (ADR 0421).
 */
export function heldByNewerBuild(repo: string, ticket: number, rec: LeaseRecord, doing: string): Refusal {
  return new Refusal(
    "newer-lease",
    [
      `${repo}#${ticket} is held by a lease @${rec.comment.author} wrote with a newer Ticket Runner (lease version ${rec.newer ?? "?"}, this build reads ${LEASE_VERSION}). This build cannot judge it, so it refused ${doing} and changed nothing.`,
      `Lease: ${rec.comment.url}`,
      `Update Ticket Runner on this Host, in its clone: ${UPDATE_COMMAND} (for VS Code, then npm run package and install dist/ticket-runner.vsix), and try again.`,
    ].join("\n"),
    { link: rec.comment.url, next: UPDATE_COMMAND },
  );
}

export function claimedLocally(repo: string, ticket: number, dir: string, current: RunJsonRead, customDir: boolean): Refusal {
  if (current.kind === "invalid") {
    // resume cannot read it either; a take-over archives the directory under superseded/ and starts afresh.
    const next = `ticket-runner start ${ticket} --take-over${customDir ? ` --run-dir ${dir}` : ""}`;
    return new Refusal(
      "claimed-locally",
      [
        `${repo}#${ticket} has a run directory on this Host whose run.json cannot be used: ${current.reason}.`,
        `Nothing was changed. Look at ${dir}; to start again with its files kept under ${dir}/superseded/: ${next}`,
      ].join("\n"),
      { path: dir, next },
    );
  }
  const next = resumeCommand(ticket, dir, customDir);
  const who = current.kind === "ok" ? ` (session ${current.run.session.slice(0, 8)}, pid ${current.run.pid}, started ${when(current.run.startedAt)})` : "";
  return new Refusal("claimed-locally", [`${repo}#${ticket} already has a run on this Host: ${dir}${who}.`, `Resume it with: ${next}`].join("\n"), {
    path: dir,
    next,
  });
}

export function heldHereWithoutRun(repo: string, ticket: number, rec: LeaseRecord, now: Date): Refusal {
  const next = `ticket-runner resume ${ticket}`;
  return new Refusal(
    "claimed-locally",
    [`${repo}#${ticket} is already held by this Host: ${holderText(rec, now)}.`, `Lease: ${rec.comment.url}`, `Re-enter it with: ${next}`].join("\n"),
    { link: rec.comment.url, next },
  );
}

export function runDirMismatch(repo: string, ticket: number, dir: string, run: RunJson): Refusal {
  return new Refusal(
    "run-dir-mismatch",
    `${dir}/run.json belongs to ${run.repo}#${run.issue}, not ${repo}#${ticket}. Nothing was moved. Pick the right one (\`ticket-runner start ${ticket} --run-dir <another dir>\`), or move that directory away yourself, or resume what it holds: \`ticket-runner resume ${run.issue} --run-dir ${dir}\`.`,
    { path: dir, next: `ticket-runner resume ${run.issue} --run-dir ${dir}` },
  );
}

export function raceLost(repo: string, ticket: number, winner: LeaseRecord | null, archived: string | null, now: Date): Refusal {
  const parts = winner ? holderParts(winner, now) : null;
  const first = parts
    ? [parts.since ? `${parts.who} claimed it first, at ${parts.since}` : `${parts.who} claimed it first`, parts.expiry].filter(Boolean).join("; ")
    : "";
  const who = winner
    ? `another claim won the race: ${first}.\nLease: ${winner.comment.url}`
    : "this claim did not win the race, and the claim that did has since been taken over or withdrawn.";
  const moved = archived ? ` Its local claim was moved to ${archived}.` : "";
  return new Refusal(
    "race-yielded",
    `${repo}#${ticket}: ${who}\nThis session started nothing; its lease is marked race-yielded.${moved} Pick another ticket: \`ticket-runner board\`.`,
    { link: winner?.comment.url, next: "ticket-runner board", path: archived ?? undefined },
  );
}

/** The claim's read-back found the ticket closed, handed off or finished by another claim since the first read. */
export function overtakenMeanwhile(repo: string, ticket: number, why: string, link: string, archived: string | null): Refusal {
  const moved = archived ? ` Its local claim was moved to ${archived}.` : "";
  return new Refusal(
    "race-yielded",
    `${repo}#${ticket}: ${why} while this claim was being written: ${link}\nThis session started nothing; its lease is marked race-yielded.${moved} Pick another ticket: \`ticket-runner board\`.`,
    { link, next: "ticket-runner board", path: archived ?? undefined },
  );
}

/**
 * A token without write access: every board write would be refused by GitHub, and a lease from
 * anyone else is ignored, so nothing is tried (ADR 0220). `doing` names the act ("releasing a
 * ticket"), `again` the command to run again with a writer's token.
 */
export function notAWriter(viewer: string, permission: string, repoName: string, doing: string, again: string): Refusal {
  return new Refusal(
    "untrusted",
    `${viewer} has "${permission}" access to ${repoName}; ${doing} needs write access (only writers' labels, leases and pushes count). Nothing was changed. Use a token of a user with write access (TICKET_RUNNER_TOKEN, GH_TOKEN or GITHUB_TOKEN), then run \`${again}\` again.`,
    { next: again },
  );
}

export function badTicket(text: string, command = "start"): Refusal {
  return new Refusal("bad-input", `"${text.slice(0, 40)}" is not a ticket number: give a positive whole number, e.g. \`ticket-runner ${command} 12\`.`);
}

/** `release` of a ticket whose claim is someone else's expired lease: theirs until taken, so refused. */
export function heldByExpiredLease(repo: string, ticket: number, rec: LeaseRecord, now: Date): Refusal {
  const next = `ticket-runner claim ${ticket}`;
  return new Refusal(
    "claimed-elsewhere",
    [
      `${repo}#${ticket} is held by ${holderText(rec, now)}.`,
      `Lease: ${rec.comment.url}`,
      `That lease has expired, but the claim is theirs until someone takes it, so only its holder releases it. Nothing was changed.`,
      `To put the ticket back yourself, take it first (an expired lease needs no --take-over), then release it: \`${next}\`, then \`ticket-runner release ${ticket}\`.`,
    ].join("\n"),
    { link: rec.comment.url, next },
  );
}

const RECORD_WORDS: Record<string, string> = {
  released: "released",
  "handed-off": "handed off to a person",
  finished: "finished",
  superseded: "taken over",
  "race-yielded": "given up after a lost race",
  claimed: "taken over",
  running: "taken over",
};

const CLAIM_STATES = new Set(["claimed", "running"]);

function who(rec: LeaseRecord): string {
  return rec.lease ? sanitizeSentence(`@${rec.comment.author} on host "${rec.lease.host.name}" (${rec.lease.holder})`) : `@${rec.comment.author}`;
}

/** The lease that displaced `own` (its take-over names own's nonce, or own names it), if it is on the issue. */
function displacer(records: LeaseRecord[], own: LeaseRecord): LeaseRecord | null {
  const nonce = own.lease?.nonce;
  if (!nonce) return null;
  return (
    records.find(
      (r) => r.lease && (r.lease.nonce === own.lease?.supersededBy || r.lease.takeover?.from === nonce || r.lease.takeover?.also?.includes(nonce)),
    ) ?? null
  );
}

/**
 * What became of a claim that holds nothing any more, as a clause: "was taken over by @x on host
 * "h" (person) at <time>; that claim is now released (<url>)", or "was released", and so on.
 */
export function claimFate(records: LeaseRecord[], own: LeaseRecord): string {
  const state = own.lease?.state ?? "finished";
  const taker = state === "superseded" || (own.lease && CLAIM_STATES.has(state)) ? displacer(records, own) : null;
  if (taker?.lease)
    return `was taken over by ${who(taker)} at ${when(taker.lease.claimedAt)}; that claim is now ${RECORD_WORDS[taker.lease.state] ?? taker.lease.state} (${taker.comment.url})`;
  return `was ${RECORD_WORDS[state] ?? state}`;
}

export interface NotYoursInput {
  repo: string;
  ticket: number;
  reading: TicketReading;
  labels: { ready: string; inProgress: string; human: string };
  /** This user's most recent lease on the issue, if any. */
  ownLast: LeaseRecord | null;
  /** This Host's run directory for the ticket, when it has one (left as it is). */
  localDir: string | null;
  now: Date;
}

/**
 * `release` of a ticket this user does not hold (nobody's live lease, no claim of theirs on the
 * board): says what happened to their claim, what the ticket is now, and that nothing changed.
 */
export function notYoursToRelease(o: NotYoursInput): Refusal {
  const { reading, labels, ticket } = o;
  const { issue } = reading;
  const latest = [...reading.records].filter((r) => r.lease).sort((a, b) => Date.parse(b.lease!.claimedAt) - Date.parse(a.lease!.claimedAt))[0] ?? null;
  const ownState = o.ownLast?.lease?.state;
  const taker = o.ownLast && (ownState === "superseded" || reading.standing.displaced.includes(o.ownLast)) ? displacer(reading.records, o.ownLast) : null;
  const lines = [`${o.repo}#${ticket} holds no claim of yours, so there is nothing for you to release. Nothing was changed.`];
  if (o.ownLast && taker?.lease) {
    lines.push(
      `Your claim (${o.ownLast.comment.url}) was taken over by ${who(taker)} at ${when(taker.lease.claimedAt)}; that claim is now ${RECORD_WORDS[taker.lease.state] ?? taker.lease.state} (${taker.comment.url}).`,
    );
  } else if (latest?.lease) {
    lines.push(`The last claim on it: ${who(latest)}, ${RECORD_WORDS[latest.lease.state] ?? latest.lease.state} (${latest.comment.url}).`);
  } else {
    lines.push("It has no lease comment.");
  }
  const assignees = issue.assignees.map((a) => `@${a}`).join(", ");
  if (issue.state === "closed") lines.push(`Now it is closed: ${issue.url}`);
  else if (issue.labels.includes(labels.inProgress))
    lines.push(`Now it is labelled ${labels.inProgress} with no live lease, ${assignees ? `assigned to ${assignees}` : "with nobody assigned"}.`);
  else if (issue.labels.includes(labels.human)) lines.push(`Now it is labelled ${labels.human}: it waits for a person.`);
  else if (issue.labels.includes(labels.ready)) lines.push(`Now it is labelled ${labels.ready} and nobody holds it: it is back in the queue.`);
  else lines.push(`Now it carries none of ${labels.ready}, ${labels.inProgress}, ${labels.human}.`);
  if (issue.assignees.some((a) => a.toLowerCase() === reading.viewer.toLowerCase()) && !issue.labels.includes(labels.inProgress)) {
    lines.push(`You are still assigned on GitHub from before; that was left as it is (${issue.url}).`);
  }
  // A leftover run.json would stop a new start here (the local claim is taken by exclusive create).
  const setAside = o.localDir ? `mv ${o.localDir} ${o.localDir}.old` : null;
  if (setAside)
    lines.push(
      `This Host still has the run directory ${o.localDir} from an earlier claim; it was left as it is. It would stop a new start here, so set it aside once you no longer need it: \`${setAside}\`.`,
    );
  if (issue.state === "open" && issue.labels.includes(labels.ready))
    lines.push(`To work on it yourself: \`${setAside ? `${setAside} && ` : ""}ticket-runner start ${ticket}\`.`);
  lines.push("See who holds what: `ticket-runner board`.");
  return new Refusal("not-ready", lines.join("\n"), { link: taker?.comment.url ?? latest?.comment.url ?? issue.url, next: "ticket-runner board" });
}

/**
 * GitHub's rate limit stopped a claim (ADR 0240). `written`: the lease landed before the limit
 * stopped its read-back, so the ticket shows as claimed and a release after the reset puts it back.
 */
export function claimRateLimited(repo: string, ticket: number, limit: GitHubRateLimit, written: { url: string } | null, now: Date): Refusal {
  const reset = limit.resetAt.toISOString();
  const wait = `${when(reset)} (${minutesFrom(reset, now)})`;
  if (written) {
    return new Refusal(
      "rate-limited",
      `The claim on ${repo}#${ticket} was written (${written.url}), but ${limit.message}, so it could not be read back and nothing was started. After ${wait}, put it back with \`ticket-runner release ${ticket}\`, then claim it again.`,
      { link: written.url, next: `ticket-runner release ${ticket}`, retryAt: reset },
    );
  }
  return new Refusal(
    "rate-limited",
    `Nothing was claimed on ${repo}#${ticket}: ${limit.message}. Run the same command again after ${wait}, e.g. \`ticket-runner start ${ticket}\`.`,
    {
      next: `ticket-runner start ${ticket}`,
      retryAt: reset,
    },
  );
}
