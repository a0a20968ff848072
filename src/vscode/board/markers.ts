// No `vscode` import: the tree item maps these ids to ThemeIcon / ThemeColor (tree-item.ts).
import type { MarkerKind, SectionId } from "../../core/board/types";

export interface IconSpec {
  /** A codicon id, e.g. `sync~spin`. */
  id: string;
  /** A theme colour id, e.g. `charts.green`; none means the default foreground. */
  color?: string;
}

/** One codicon per claim state; the colour tells apart "here", "elsewhere" and "needs attention". */
export const MARKER_ICONS: Record<MarkerKind, IconSpec> = {
  running: { id: "sync~spin", color: "charts.green" },
  "claimed-here": { id: "circle-filled", color: "charts.green" },
  "claimed-elsewhere": { id: "circle-outline", color: "charts.blue" },
  person: { id: "account", color: "charts.purple" },
  stale: { id: "warning", color: "list.warningForeground" },
  stranded: { id: "debug-pause", color: "charts.orange" },
  free: { id: "circle-large-outline" },
  finished: { id: "pass", color: "testing.iconPassed" },
  released: { id: "history", color: "descriptionForeground" },
  yielded: { id: "debug-disconnect", color: "descriptionForeground" },
  "needs-person": { id: "report", color: "charts.red" },
  blocked: { id: "lock", color: "descriptionForeground" },
};

export const SECTION_ICONS: Record<SectionId, IconSpec> = {
  "running-here": { id: "vm-running", color: "charts.green" },
  "claimed-elsewhere": { id: "remote-explorer" },
  stale: { id: "watch", color: "list.warningForeground" },
  frontier: { id: "inbox" },
  blocked: { id: "lock" },
  "needs-person": { id: "account" },
  stranded: { id: "debug-pause", color: "charts.orange" },
};

export const ERROR_ICON: IconSpec = { id: "error", color: "errorForeground" };
