/**
 * Every refusal the protocol gives: what happened, who holds what (with a link), the exact next
 * command. Callers branch on `reason`, never on these words.
 */
import type { RunJsonRead } from "../../ports/run-root";
import { Refusal } from "../errors";
import type { RunJson } from "../schemas/run-json";
import type { LeaseRecord } from "./lease-standing";

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

export function holderText(rec: LeaseRecord, now: Date): string {
  const l = rec.lease;
  if (!l) return `a finished record by @${rec.comment.author}`;
  const expiry = l.expiresAt ? `expires ${when(l.expiresAt)} (${minutesFrom(l.expiresAt, now)})` : "a person's claim: it never expires";
  return `@${rec.comment.author} on host "${l.host.name}" (${l.holder}, session ${l.session.slice(0, 8)}), claimed ${when(l.claimedAt)}, ${expiry}`;
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

export function claimedLocally(repo: string, ticket: number, dir: string, current: RunJsonRead, customDir: boolean): Refusal {
  const next = resumeCommand(ticket, dir, customDir);
  const who =
    current.kind === "ok"
      ? ` (session ${current.run.session.slice(0, 8)}, pid ${current.run.pid}, started ${when(current.run.startedAt)})`
      : current.kind === "invalid"
        ? ` (its run.json is being written or unreadable: ${current.reason})`
        : "";
  return new Refusal(
    "claimed-locally",
    [`${repo}#${ticket} already has a run on this Host: ${dir}${who}.`, `Resume it with: ${next}`].join("\n"),
    { path: dir, next },
  );
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
  const who = winner ? `${holderText(winner, now)} claimed it first.\nLease: ${winner.comment.url}` : "its lease was taken over or withdrawn.";
  const moved = archived ? ` Its local claim was moved to ${archived}.` : "";
  return new Refusal(
    "race-yielded",
    `${repo}#${ticket}: another claim won the race: ${who}\nThis session started nothing; its lease is marked race-yielded.${moved} Pick another ticket: \`ticket-runner board\`.`,
    { link: winner?.comment.url, next: "ticket-runner board", path: archived ?? undefined },
  );
}

export function badTicket(text: string): Refusal {
  return new Refusal("bad-input", `"${text.slice(0, 40)}" is not a ticket number: give a positive whole number, e.g. \`ticket-runner start 12\`.`);
}
