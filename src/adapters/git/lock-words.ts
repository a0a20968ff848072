/** What the Run lock says, in words: commit messages and refusals (docs/workspace.md). */
import { Refusal } from "../../core/errors";
import { describeElsewhere, describeHolder, hostWords } from "../../core/run/lock-refusal";
import type { LockHolder } from "../../ports/workspace";

export const LOCK_BRANCH = "ticket-runner/lock";

export function heldMessage(holder: LockHolder, tookOver: LockHolder[]): string {
  const subject = `Held by run ${holder.runId} on ${hostWords(holder)}: ${holder.command}`;
  if (tookOver.length === 0) return subject;
  const body = tookOver.map((t) => `Took over from run ${t.runId} (pid ${t.pid}), whose process on this Host is gone.`).join("\n");
  return `${subject}\n\n${body}`;
}

export function freeMessage(why: string): string {
  return `Free\n\n${why}`;
}

export function runningRefusal(holder: LockHolder): Refusal {
  return new Refusal(
    "lock-held",
    `Another ticket-runner is running on this Host: ${describeHolder(holder)}. Stop it with \`ticket-runner stop\`, or wait for it to end, then start again.`,
    { next: "ticket-runner stop" },
  );
}

/**
 * The command that frees the lock file at `path`: lock.json with `unlock`; a per-host file with
 * `unlock --scope host`, run on the Host that file names (it frees that Host's own file only).
 */
function freeCommand(path: string): string {
  return path === "lock.json" ? "ticket-runner unlock --yes" : "ticket-runner unlock --scope host --yes";
}

export function elsewhereRefusal(holder: LockHolder, lockPath: string, branch: string, link: string | undefined): Refusal {
  const where = link ? ` (${link})` : "";
  const from = lockPath === "lock.json" ? "from a clone of the Target" : `on ${hostWords(holder)}, from its clone of the Target`;
  return new Refusal(
    "lock-held",
    `The Run lock is held by ${describeElsewhere(holder)}. Nothing on this Host can see that Host's processes, so its lock is never presumed dead. ` +
      `If no Run is running there, a person frees it: run \`${freeCommand(lockPath)}\` ${from}, ` +
      `or commit a ${lockPath} that reads {"held": false} to the ${branch} branch${where}. Then start again.`,
    { next: freeCommand(lockPath), ...(link ? { link } : {}) },
  );
}

export function corruptLockRefusal(path: string, reason: string, branch: string, link: string | undefined): Refusal {
  return new Refusal(
    "bad-input",
    `${path} on ${branch} cannot be read: ${reason}. It is left as it is. If no Run is running, replace it with {"held": false} ` +
      `(run \`${freeCommand(path)}\`${path === "lock.json" ? "" : " on the Host it names"}, or commit it to ${branch}), then start again.`,
    { path: `${branch}:${path}`, next: freeCommand(path), ...(link ? { link } : {}) },
  );
}
