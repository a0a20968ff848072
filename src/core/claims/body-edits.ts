/**
 * An issue's body as a writer saw it (ADR 0163). A writer's `ready-for-agent` label approves the
 * body they read; anyone who may edit the issue (its author, often an outsider) can change it
 * afterwards. A body edited by a non-writer after the label was last applied is not what a writer
 * approved, so the label does not count until a writer applies it again.
 */
import type { BodyHistory, Permission, Tracker } from "../../ports/tracker";

const WRITERS = new Set<Permission>(["admin", "maintain", "write"]);

/** The first non-writer who edited the body after `label` was last applied, or null. */
export async function editedAfterLabel(
  tracker: Pick<Tracker, "bodyHistory">,
  permissionOf: (user: string) => Promise<Permission>,
  issue: number,
  label: string,
  known?: BodyHistory,
): Promise<string | null> {
  // The claim's thread read carries the history when GitHub's answer held the label's event (no request of its own).
  const history = known ?? (await tracker.bodyHistory(issue, label));
  const since = history.labeledAt ? Date.parse(history.labeledAt) : Number.NEGATIVE_INFINITY;
  // GitHub's times have whole seconds, so an edit in the same second as the label may have come
  // after it: it is not approved either. That includes the original text (GitHub records it, by
  // its author, once the body is first edited): telling it apart from an edit in the same second
  // would rest on the order GitHub lists them in, which it does not document.
  const later = history.edits.filter((e) => Date.parse(e.editedAt) >= since);
  for (const e of later) {
    if (!e.editor) return "a deleted account";
    if (!WRITERS.has(await permissionOf(e.editor))) return e.editor;
  }
  return null;
}
