/** The refusal a Run gives when the Run lock is held (docs/workspace.md, "The Run lock"). */
import type { LockHolder, LockStanding } from "../../ports/workspace";
import { sanitizeSentence } from "../board/sanitize";
import { Refusal } from "../errors";

export function describeHolder(h: LockHolder): string {
  // A lock is on the remote: anyone who can push writes its words.
  return sanitizeSentence(`run ${h.runId} (pid ${h.pid}, \`${h.command}\`) on the ${h.host.kind} \`${h.host.name}\`, started ${h.startedAt}`);
}

/** Another Host's Run: its Host and its run, not its pid (a number that means nothing here). */
export function describeElsewhere(h: LockHolder): string {
  return sanitizeSentence(`the Host \`${h.host.name}\` (${h.host.kind}) runs run ${h.runId} (\`${h.command}\`), started ${h.startedAt}`);
}

export function lockRefusal(standing: LockStanding, holder: LockHolder): Refusal {
  if (standing === "elsewhere") {
    return new Refusal(
      "lock-held",
      `A Run on another Host holds this Target: ${describeElsewhere(holder)}. Nothing on this Host can see that Run, so it is never presumed dead. If that Host is gone and no Run is running, release the lock with \`ticket-runner unlock --yes\` (or commit a lock.json reading {"held": false} to the ticket-runner/lock branch), then run \`ticket-runner run\` again.`,
      { next: "ticket-runner unlock --yes" },
    );
  }
  return new Refusal(
    "lock-held",
    `Another ticket-runner is running on this Host: ${describeHolder(holder)}. Wait for it to finish, or stop it with \`ticket-runner stop\`.`,
    { next: "ticket-runner stop" },
  );
}
