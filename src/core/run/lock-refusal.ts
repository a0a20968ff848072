/** The Run lock's holder in words, and the refusal a Run gives when it is held (docs/workspace.md, "The Run lock"). */
import type { LockHolder, LockStanding } from "../../ports/workspace";
import { sanitizeSentence } from "../board/sanitize";
import { Refusal } from "../errors";

export function hostWords(holder: LockHolder): string {
  return `the ${holder.host.kind === "cloud" ? "cloud host" : "workstation"} \`${holder.host.name}\``;
}

/** A Run lock's holder on this Host, in words (its pid means something here). */
export function describeHolder(holder: LockHolder): string {
  // A lock is on the remote: anyone who can push writes its words.
  return sanitizeSentence(
    `run ${holder.runId} on ${hostWords(holder)} (host id ${holder.host.id}, pid ${holder.pid}, since ${holder.startedAt}): \`${holder.command}\``,
  );
}

/** Another Host's Run, for a person there: the Host and the run (its pid means nothing on this Host). */
export function describeElsewhere(holder: LockHolder): string {
  return sanitizeSentence(`run ${holder.runId} on ${hostWords(holder)} (since ${holder.startedAt}): \`${holder.command}\``);
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
