/**
 * The Frontier: open `ready-for-agent` issues nobody holds and nothing blocks, lowest number first.
 * A `ready-for-agent` label counts only when someone with write access applied it (BRIEF §3.6).
 */
import type { Log } from "../../ports/log";
import type { Permission, Tracker, TrackerIssue } from "../../ports/tracker";
import type { Config } from "../schemas/config";
import type { TrustCheck } from "./context";

const WRITERS: Permission[] = ["admin", "maintain", "write"];

/** The default trust rule: the latest actor to apply the ready label has write access. Cached per user. */
export function labelTrust(tracker: Tracker, readyLabel: string, log: Log): TrustCheck {
  const permissions = new Map<string, Promise<Permission>>();
  return async (issue) => {
    const actors = await tracker.labelActors(issue.number, readyLabel);
    const latest = actors[actors.length - 1];
    if (!latest) {
      log.info(`#${issue.number}: nobody is recorded as applying ${readyLabel}; not trusted`);
      return false;
    }
    let permission = permissions.get(latest);
    if (!permission) {
      permission = tracker.permissionOf(latest);
      permissions.set(latest, permission);
    }
    const trusted = WRITERS.includes(await permission);
    if (!trusted) log.info(`#${issue.number}: ${readyLabel} was applied by ${latest}, who has no write access; ignored`);
    return trusted;
  };
}

export type Eligibility = { ok: true } | { ok: false; reason: string };

/** Why an open issue is not on the Frontier, or ok. Cheap checks first; the tracker is asked last. */
export async function eligibility(tracker: Tracker, config: Config, trust: TrustCheck, issue: TrackerIssue): Promise<Eligibility> {
  const { labels } = config;
  if (issue.state !== "open") return { ok: false, reason: "not open" };
  if (issue.labels.includes(labels.human)) return { ok: false, reason: `not ready: labelled ${labels.human}` };
  if (issue.labels.includes(labels.inProgress)) return { ok: false, reason: `not ready: labelled ${labels.inProgress}` };
  if (!issue.labels.includes(labels.ready)) return { ok: false, reason: `not ready: not labelled ${labels.ready}` };
  if (issue.assignees.length > 0) return { ok: false, reason: `held by ${issue.assignees.join(", ")}` };
  if (!(await trust(issue))) return { ok: false, reason: `${labels.ready} was not applied by someone with write access` };
  const blockers = await tracker.openBlockers(issue.number);
  if (blockers.length > 0) return { ok: false, reason: `blocked by ${blockers.map((b) => `#${b}`).join(" ")}` };
  return { ok: true };
}

/** Open ready issues, lowest number first, not in `exclude`. The list is asked again each call: other Hosts move it. */
export async function frontierCandidates(tracker: Tracker, config: Config, exclude: ReadonlySet<number>): Promise<TrackerIssue[]> {
  const open = await tracker.listOpenIssues([config.labels.ready]);
  return open.filter((i) => !exclude.has(i.number)).sort((a, b) => a.number - b.number);
}
