/**
 * Handing a Ticket back (docs/endings.md): a person moves a handed-off Ticket's label from ready-for-human
 * to ready-for-agent, so the next Run finds it on the Frontier and resumes it from its State file
 * with a fresh fix budget. Labels only: no assignee changes, no lease, and the State file stays
 * (the Run's resume and sweep own it). The CLI (`ticket-runner hand-back <n>`) and the extension's
 * Hand Back both come here, so there is one set of checks and one set of words.
 */
import type { Log } from "../../ports/log";
import type { Tracker, TrackerIssue } from "../../ports/tracker";
import { Refusal } from "../errors";
import { requireWriteAccess } from "./writer-access";
import type { StateFile } from "../schemas/state-file";

export interface HandBackDeps {
  tracker: Tracker;
  labels: { ready: string; human: string };
  /** `owner/name`, for the words. */
  repoName: string;
  /** Reads the Ticket's State file to name where the next Run resumes; absent when no checkout is at hand. */
  readState?: (ticket: number) => Promise<StateFile | null>;
  log?: Log;
}

export interface HandBackPlan {
  ticket: number;
  issueUrl: string;
  /** The State file, when it was read (null: read and absent; undefined: not read). */
  state: StateFile | null | undefined;
  /** "the next Run resumes #n from … with a fresh fix budget". */
  next: string;
}

export type HandBackResult = { kind: "handed-back"; plan: HandBackPlan; summary: string } | { kind: "cancelled"; plan: HandBackPlan };

function from(state: StateFile | null | undefined, unread: string | null): string {
  if (state === undefined) return unread ? `its State file (not read here: ${unread})` : "its State file";
  if (state === null) return "the top (no State file was found for it, so nothing is skipped)";
  if (state.state === "implemented")
    return `its State file (implemented on \`${state.branch}\`: straight to the Checks, the implement Stage is not paid for twice)`;
  return `its State file (claimed on \`${state.branch}\`: the implement Stage runs again)`;
}

function refuseUnlessHandedOff(deps: HandBackDeps, ticket: number, issue: TrackerIssue | null): asserts issue is TrackerIssue {
  const name = `${deps.repoName}#${ticket}`;
  if (!issue) {
    throw new Refusal(
      "bad-input",
      `${name} does not exist (or this token cannot see it). Nothing was changed. Check the number on the board: ticket-runner board`,
      { next: "ticket-runner board" },
    );
  }
  if (issue.state === "closed") {
    throw new Refusal(
      "not-open",
      `${name} is closed, so there is nothing to hand back: a closed Ticket's State file is removed by the next sweep. Nothing was changed.\nIssue: ${issue.url}\nTo work on it again, reopen it on GitHub, then: ticket-runner hand-back ${ticket}`,
      { link: issue.url, next: `ticket-runner hand-back ${ticket}` },
    );
  }
  if (!issue.labels.includes(deps.labels.human)) {
    const why = issue.labels.includes(deps.labels.ready)
      ? `it is already labelled ${deps.labels.ready}, so the next Run takes it as it is`
      : `only a Ticket labelled ${deps.labels.human} (handed off to a person) can be handed back; its labels are ${issue.labels.length ? issue.labels.join(", ") : "none"}`;
    throw new Refusal(
      "not-ready",
      `${name} is not labelled ${deps.labels.human}: ${why}. Nothing was changed.\nIssue: ${issue.url}\nSee where it stands: ticket-runner board`,
      {
        link: issue.url,
        next: "ticket-runner board",
      },
    );
  }
}

/** Reads and checks the Ticket; throws a Refusal when it is not a handed-off, open Ticket. Writes nothing. */
export async function planHandBack(deps: HandBackDeps, ticket: number): Promise<HandBackPlan> {
  const issue = await deps.tracker.getIssue(ticket);
  refuseUnlessHandedOff(deps, ticket, issue);
  await requireWriteAccess(deps.tracker, "handing a ticket back", `ticket-runner hand-back ${ticket}`);
  let state: StateFile | null | undefined;
  let unread: string | null = null;
  if (deps.readState) {
    try {
      state = await deps.readState(ticket);
    } catch (error) {
      // The State is only named in the words; the Run reads it again (and judges it) when it resumes.
      unread = error instanceof Error ? error.message : String(error);
      deps.log?.warn(`#${ticket}: could not read the State file to name it`, { error: unread });
    }
  }
  return { ticket, issueUrl: issue.url, state, next: `the next Run resumes #${ticket} from ${from(state, unread)} with a fresh fix budget` };
}

/**
 * Checks, asks `confirm` (when given) with the plan, re-checks the labels (a person or a Run may have
 * moved them while the question was open), then swaps ready-for-human for ready-for-agent.
 */
export async function handBackTicket(
  deps: HandBackDeps,
  ticket: number,
  opts: { confirm?: (plan: HandBackPlan) => Promise<boolean> } = {},
): Promise<HandBackResult> {
  const plan = await planHandBack(deps, ticket);
  if (opts.confirm && !(await opts.confirm(plan))) return { kind: "cancelled", plan };
  if (opts.confirm) refuseUnlessHandedOff(deps, ticket, await deps.tracker.getIssue(ticket));
  await deps.tracker.writeIssue(ticket, { addLabels: [deps.labels.ready], removeLabels: [deps.labels.human] });
  deps.log?.info(`#${ticket}: handed back (${deps.labels.human} -> ${deps.labels.ready})`);
  const summary = `Handed back ${deps.repoName}#${ticket}: ${deps.labels.human} off, ${deps.labels.ready} on; ${plan.next}.\nIssue: ${plan.issueUrl}`;
  return { kind: "handed-back", plan, summary };
}
