/**
 * Only writers with write access to the Target count (docs/claims.md, "Trust"; ADR 0042): anyone can comment on a public
 * issue, so a lease, a finished marker or a `ready-for-agent` label from anyone else is ignored
 * and logged. Permissions are asked once per user per Run (this cache lives as long as the gate).
 */
import type { Log } from "../../ports/log";
import type { BodyHistory, Permission, Tracker } from "../../ports/tracker";
import { editedAfterLabel } from "./body-edits";

const WRITERS = new Set<Permission>(["admin", "maintain", "write"]);

export function canWrite(permission: Permission): boolean {
  return WRITERS.has(permission);
}

export class TrustCache {
  private readonly answers = new Map<string, Promise<Permission>>();

  constructor(
    private readonly tracker: Pick<Tracker, "permissionOf">,
    private readonly log: Log,
  ) {}

  permission(user: string): Promise<Permission> {
    const key = user.toLowerCase();
    let answer = this.answers.get(key);
    if (!answer) {
      answer = this.tracker.permissionOf(user);
      // A failed look-up is not an answer: drop it so the next read asks again.
      answer.catch(() => this.answers.delete(key));
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** An answer learnt elsewhere (the claim read carries the viewer's own permission). */
  remember(user: string, permission: Permission): void {
    this.answers.set(user.toLowerCase(), Promise.resolve(permission));
  }

  isWriter(permission: Permission): boolean {
    return canWrite(permission);
  }

  async trusted(user: string): Promise<boolean> {
    return canWrite(await this.permission(user));
  }

  /**
   * Whether the ready label on `issue` counts: the actor of its latest `labeled` event must be a
   * writer. No event at all (a label set at creation by a writer shows as an event on GitHub, so
   * this is rare) is not trusted either.
   */
  async readyLabelTrusted(
    tracker: Pick<Tracker, "labelActors" | "bodyHistory">,
    issue: number,
    label: string,
    known?: { labelActors?: Record<string, string[]>; labeledAt?: Record<string, string>; bodyEdits?: BodyHistory["edits"] },
  ): Promise<{ trusted: boolean; actor: string | null; editedBy?: string }> {
    const actors = known?.labelActors?.[label] ?? (await tracker.labelActors(issue, label));
    const actor = actors[actors.length - 1] ?? null;
    if (!actor) {
      this.log.warn("ready label has no labeled event; ignoring it", { issue, label });
      return { trusted: false, actor };
    }
    const trusted = await this.trusted(actor);
    if (!trusted) {
      this.log.warn("ready label applied by a user without write access; ignoring it", { issue, label, actor });
      return { trusted, actor };
    }
    // The label approves the body the writer read: a later edit by a non-writer is not approved (ADR 0163).
    const labeledAt = known?.labeledAt?.[label];
    const history = labeledAt && known?.bodyEdits ? { labeledAt, edits: known.bodyEdits } : undefined;
    const editedBy = await editedAfterLabel(tracker, (user) => this.permission(user), issue, label, history);
    if (editedBy) {
      this.log.warn("body edited by a user without write access after the ready label; ignoring the label", { issue, label, actor, editedBy });
      return { trusted: false, actor, editedBy };
    }
    return { trusted, actor };
  }
}
