/**
 * What keeps an open issue from being taken by a Run, as data: the Frontier's rules and the
 * acceptance-criteria guard, read without side effects (no comment, no label, no claim). The Run
 * turns a Hold into its skip line (holdReason); a front door turns it into a reason and a next
 * step for a person (hold-advice.ts). One set of rules for both, so a picker never offers a ticket
 * the Run would only skip.
 */
import type { Log } from "../../ports/log";
import type { Permission, Tracker, TrackerIssue } from "../../ports/tracker";
import type { Config } from "../schemas/config";
import { uncheckedCriteria } from "./criteria";

export type Hold =
  | { kind: "not-open" }
  /** Carries a label that takes it off the Frontier: with a person (ready-for-human) or claimed (in-progress). */
  | { kind: "labelled"; label: string; as: "human" | "in-progress" }
  /** Lacks the ready label. */
  | { kind: "not-labelled"; label: string }
  | { kind: "held"; by: string[] }
  /** The ready label's latest `labeled` event is not a writer's. `actor`: see ReadyLabelVerdict. */
  | { kind: "untrusted"; label: string; actor?: string | null }
  /** Open issues block it (GitHub issue dependencies), lowest first. */
  | { kind: "blocked"; blockers: number[] }
  | { kind: "no-criteria" };

export interface ReadyLabelVerdict {
  trusted: boolean;
  /** Who applied the label last; null when no `labeled` event names anyone; absent when the check does not say. */
  actor?: string | null;
}

/** Decides whether an issue's ready label counts (ADR 0042), saying who applied it. */
export type ReadyLabelCheck = (issue: TrackerIssue) => Promise<ReadyLabelVerdict>;

const WRITERS: Permission[] = ["admin", "maintain", "write"];

/**
 * The default rule: the latest actor to apply the ready label has write access. Permissions are
 * cached per user for as long as the check lives (one Run, or one picker).
 */
export function readyLabelCheck(tracker: Pick<Tracker, "labelActors" | "permissionOf">, readyLabel: string, log: Log): ReadyLabelCheck {
  const permissions = new Map<string, Promise<Permission>>();
  return async (issue) => {
    const actors = await tracker.labelActors(issue.number, readyLabel);
    const latest = actors[actors.length - 1];
    if (!latest) {
      log.info(`#${issue.number}: nobody is recorded as applying ${readyLabel}; not trusted`);
      return { trusted: false, actor: null };
    }
    let permission = permissions.get(latest);
    if (!permission) {
      permission = tracker.permissionOf(latest);
      // A failed look-up is not an answer: the next issue asks again.
      permission.catch(() => permissions.delete(latest));
      permissions.set(latest, permission);
    }
    const trusted = WRITERS.includes(await permission);
    if (!trusted) log.info(`#${issue.number}: ${readyLabel} was applied by ${latest}, who has no write access; ignored`);
    return { trusted, actor: latest };
  };
}

/** Why an open issue is not on the Frontier, or null. Cheap checks first; the tracker is asked last. */
export async function frontierHold(tracker: Pick<Tracker, "openBlockers">, config: Config, check: ReadyLabelCheck, issue: TrackerIssue): Promise<Hold | null> {
  const { labels } = config;
  if (issue.state !== "open") return { kind: "not-open" };
  if (issue.labels.includes(labels.human)) return { kind: "labelled", label: labels.human, as: "human" };
  if (issue.labels.includes(labels.inProgress)) return { kind: "labelled", label: labels.inProgress, as: "in-progress" };
  if (!issue.labels.includes(labels.ready)) return { kind: "not-labelled", label: labels.ready };
  if (issue.assignees.length > 0) return { kind: "held", by: [...issue.assignees] };
  const verdict = await check(issue);
  if (!verdict.trusted)
    return verdict.actor === undefined ? { kind: "untrusted", label: labels.ready } : { kind: "untrusted", label: labels.ready, actor: verdict.actor };
  const blockers = await tracker.openBlockers(issue.number);
  if (blockers.length > 0) return { kind: "blocked", blockers: [...blockers].sort((a, b) => a - b) };
  return null;
}

/** The criteria guard's rule: verify needs at least one unticked `- [ ]` item to grade. */
export function criteriaHold(issue: { body: string }): Hold | null {
  return uncheckedCriteria(issue.body).length > 0 ? null : { kind: "no-criteria" };
}

/** Everything a narrowed Run checks before it claims, in the Run's order, with no side effects. */
export async function startHold(tracker: Pick<Tracker, "openBlockers">, config: Config, check: ReadyLabelCheck, issue: TrackerIssue): Promise<Hold | null> {
  return (await frontierHold(tracker, config, check, issue)) ?? criteriaHold(issue);
}

/** The Run's skip line for a hold (the summary row, the run-ended event). */
export function holdReason(hold: Hold): string {
  switch (hold.kind) {
    case "not-open":
      return "not open";
    case "labelled":
      return `not ready: labelled ${hold.label}`;
    case "not-labelled":
      return `not ready: not labelled ${hold.label}`;
    case "held":
      return `held by ${hold.by.join(", ")}`;
    case "untrusted":
      if (hold.actor) return `${hold.label} was applied by ${hold.actor}, who has no write access`;
      if (hold.actor === null) return `nobody is recorded as applying ${hold.label}, so it does not count`;
      return `${hold.label} was not applied by someone with write access`;
    case "blocked":
      return `blocked by ${hold.blockers.map((b) => `#${b}`).join(" ")}`;
    case "no-criteria":
      return "no unticked `- [ ]` acceptance criteria";
  }
}
