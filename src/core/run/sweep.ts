/**
 * The sweep, before the Frontier: every State file is looked at, and a Ticket that still carries
 * this user's Claim is Stranded (its Run was killed) and resumed in place. Everything else is left
 * alone, or tidied when its issue has closed (docs/endings.md, "Resuming: the sweep").
 */
import type { TrackerIssue } from "../../ports/tracker";
import type { LockHolder } from "../../ports/workspace";
import type { StateFile } from "../schemas/state-file";
import type { RunEnv } from "./context";
import { errorText, removeState } from "./context";

export interface StrandedTicket {
  ticket: number;
  state: StateFile;
  issue: TrackerIssue;
}

function ticketOfPath(path: string): number | null {
  const m = /ticket-(\d+)\.json$/.exec(path);
  return m ? Number(m[1]) : null;
}

/**
 * `elsewhere`: the Runs of other Hosts that hold their locks now, by run id (ADR 0441). A State
 * record one of them wrote less than a lease's lifetime ago is theirs, under a live lease: a take
 * would only read that lease and be refused, so the sweep leaves it without asking.
 */
export async function sweep(env: RunEnv, only: ReadonlySet<number> | null, elsewhere: ReadonlyMap<string, LockHolder> = new Map()): Promise<StrandedTicket[]> {
  const { workspace, tracker, log } = env.deps;
  let read;
  try {
    read = await workspace.readStates();
  } catch (error) {
    log.warn(`could not read the State files; no Stranded ticket is resumed this Run`, { error: errorText(error) });
    return [];
  }
  for (const bad of read.unreadable) {
    const n = bad.ticket ?? ticketOfPath(bad.path);
    if (only && (n === null || !only.has(n))) continue;
    log.warn(
      `#${n ?? "?"} has a State file this Version cannot use, written by ${bad.writtenBy ?? "an unknown version"}; leaving it and its Claim alone (${bad.reason})`,
    );
  }
  const stranded: StrandedTicket[] = [];
  for (const state of [...read.files].sort((a, b) => a.ticket - b.ticket)) {
    if (only && !only.has(state.ticket)) continue;
    const holder = elsewhere.get(state.runId);
    if (holder && env.deps.clock.now().getTime() - Date.parse(state.updatedAt) < env.config.lease.ttlMinutes * 60_000) {
      log.info(`#${state.ticket}: run ${state.runId} on ${holder.host.name} holds it, and its lock; left to it`);
      continue;
    }
    let issue: TrackerIssue | null;
    try {
      issue = await tracker.getIssue(state.ticket);
    } catch (error) {
      log.warn(`#${state.ticket}: the tracker could not be asked about it; leaving its State file as it is`, { error: errorText(error) });
      continue;
    }
    if (!issue) {
      log.warn(`#${state.ticket}: the tracker does not know this issue; leaving its State file as it is`);
      continue;
    }
    if (issue.state === "closed") {
      // A Run killed after its merge landed left its claim on the closed issue: finish it first,
      // then drop the State (the other order would lose the only pointer back to it).
      if (issue.assignees.includes(env.viewer) && issue.labels.includes(env.config.labels.inProgress) && env.deps.gate.closeOut) {
        try {
          await env.deps.gate.closeOut(state.ticket);
        } catch (error) {
          log.warn(`#${state.ticket}: could not finish the claim a killed Run left on the closed issue; keeping its State file for the next Run`, {
            error: errorText(error),
          });
          continue;
        }
      }
      await removeState(env, state.ticket, "the issue has closed");
      continue;
    }
    const others = issue.assignees.filter((a) => a !== env.viewer);
    if (!issue.assignees.includes(env.viewer) && others.length > 0) {
      // Said at the default log level: a person looking for the ticket must not have to guess why it was skipped.
      log.warn(`#${state.ticket} is resumable, but ${others.map((o) => `@${o}`).join(", ")} holds it now; this Run leaves it to them`);
      continue;
    }
    if (issue.assignees.includes(env.viewer) && issue.labels.includes(env.config.labels.inProgress)) {
      stranded.push({ ticket: state.ticket, state, issue });
    }
    // Claim off (ready-for-agent or ready-for-human): the Frontier or a person takes it from here.
  }
  return stranded;
}
