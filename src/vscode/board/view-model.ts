// No `vscode` import: what each tree node shows, as plain data, unit-tested without a VS Code.
// tree-item.ts turns a NodeVm into a vscode.TreeItem.
import type { BoardError } from "../../core/board/source-error";
import type { BoardFilter, BoardModel, BoardRow, BoardSection } from "../../core/board/types";
import { resetTime } from "../../core/run/naming";
import { escapeMarkdown, mdCode, mdLink } from "./markdown";
import { ERROR_ICON, MARKER_ICONS, SECTION_ICONS, type IconSpec } from "./markers";

/** The command a ticket click runs; it calls the board's injectable opener. */
export const OPEN_COMMAND = "ticketRunner.board.open";
const RETRY_COMMAND = "ticketRunner.refresh";
const SHOW_ALL_COMMAND = "ticketRunner.filterAll";

export type BoardNode =
  | { kind: "section"; id: string; section: BoardSection }
  | { kind: "ticket"; id: string; row: BoardRow }
  | { kind: "error"; id: string; error: BoardError; stale: boolean; fetchedAt: Date | null }
  | { kind: "status"; id: string; text: string; icon: IconSpec; command?: string };

export interface NodeVm {
  id: string;
  label: string;
  description?: string;
  icon?: IconSpec;
  /** Markdown; `trustedCommands` are the only command links it may run. */
  tooltip?: { markdown: string; trustedCommands: string[] };
  contextValue: string;
  collapsible: "none" | "collapsed" | "expanded";
  command?: { id: string; title: string; args: unknown[] };
}

/** What the board shows at its top level, given the controller's state. */
export interface BoardSnapshot {
  phase: "idle" | "loading" | "ready";
  model: BoardModel | null;
  error: BoardError | null;
  fetchedAt: Date | null;
  filter: BoardFilter;
  repo: string | null;
}

export const ERROR_NODE_ID = "ticketRunner:error";

/**
 * What the tree shows next. A snapshot without a board for the same repository and filter (a
 * reconnect, a fetch still in flight, a failed fetch) keeps the last good board: an empty tree
 * would let a welcome view flash while tickets exist. Only leaving the repository (signed out,
 * no Target) or a successful fetch replaces it.
 */
export function nextSnapshot(prev: BoardSnapshot, next: BoardSnapshot): BoardSnapshot {
  // A refused ticket-runner.json may name other labels: the last board drawn is no longer the Target's.
  if (next.error?.reason === "bad-config") return next;
  if (next.model || !prev.model || next.repo === null || next.repo !== prev.repo || next.filter !== prev.filter) return next;
  return { ...next, model: prev.model, fetchedAt: prev.fetchedAt, phase: next.phase === "idle" ? "ready" : next.phase };
}

/**
 * The `ticketRunner.noReadyTickets` context key: true only for a finished fetch that found no
 * ticket at all; null while a fetch is in flight (leave the key as it is, so nothing flashes).
 */
export function noReadyTickets(s: BoardSnapshot): boolean | null {
  if (s.phase === "loading") return null;
  return s.model !== null && s.model.total === 0 && s.filter === "all" && !s.error;
}

/**
 * The root's children. An empty list lets a welcome view show (signed out, no remote, no tickets);
 * a failed fetch always shows its row, and never empties what was already on the board.
 */
export function rootNodes(s: BoardSnapshot): BoardNode[] {
  const nodes: BoardNode[] = [];
  if (s.error) nodes.push({ kind: "error", id: ERROR_NODE_ID, error: s.error, stale: s.model !== null, fetchedAt: s.fetchedAt });
  if (!s.model) {
    if (!s.error && s.phase === "loading")
      nodes.push({ kind: "status", id: "ticketRunner:loading", text: `Loading the tickets of ${s.repo ?? "the repository"}…`, icon: { id: "loading~spin" } });
    return nodes;
  }
  if (s.model.total === 0) {
    if (s.filter === "mine")
      nodes.push({
        kind: "status",
        id: "ticketRunner:none-mine",
        text: "Nothing on the board is yours. Show all tickets",
        icon: { id: "filter" },
        command: SHOW_ALL_COMMAND,
      });
    return nodes; // with "all", the "no ready tickets" welcome view shows
  }
  for (const section of s.model.sections) nodes.push({ kind: "section", id: sectionNodeId(section), section });
  return nodes;
}

/**
 * VS Code remembers a tree item's collapsed state by its id, and an item drawn with nothing to
 * expand is remembered as collapsed: "Running here 0" that later gains a row would stay shut. An
 * empty section therefore has its own id, so a section that gains rows is a new item and opens
 * (expanded). A section a person collapsed while it had rows keeps that choice.
 */
function sectionNodeId(section: BoardSection): string {
  return section.count === 0 ? `ticketRunner:section:${section.id}:empty` : `ticketRunner:section:${section.id}`;
}

/**
 * Everything the tree draws for a snapshot, as one string. The tree redraws only when it changes:
 * a redraw replaces the rows under an open context menu and swallows the click (a Run refreshes
 * the board on every Stage event, and most refreshes change nothing a person can see).
 */
export function renderKey(s: BoardSnapshot): string {
  const parts: string[] = [];
  for (const node of rootNodes(s)) {
    parts.push(JSON.stringify(nodeVm(node)));
    for (const child of childNodes(node)) parts.push(JSON.stringify(nodeVm(child)));
  }
  return parts.join("\n");
}

export function childNodes(node: BoardNode): BoardNode[] {
  if (node.kind !== "section") return [];
  return node.section.rows.map((row) => ({ kind: "ticket", id: `ticketRunner:ticket:${row.id}`, row }));
}

export function nodeVm(node: BoardNode): NodeVm {
  switch (node.kind) {
    case "section":
      return {
        id: node.id,
        label: node.section.title,
        description: String(node.section.count),
        icon: SECTION_ICONS[node.section.id],
        contextValue: `ticketRunner:section+${node.section.id}`,
        collapsible: node.section.count === 0 ? "none" : "expanded",
      };
    case "ticket":
      return ticketVm(node.id, node.row);
    case "error":
      return errorVm(node);
    case "status":
      return {
        id: node.id,
        label: node.text,
        icon: node.icon,
        contextValue: "ticketRunner:status",
        collapsible: "none",
        ...(node.command ? { command: { id: node.command, title: node.text, args: [] } } : {}),
      };
  }
}

/** Where a click goes: a claim opens its lease comment, anything else its issue. */
function clickTarget(row: BoardRow): string {
  return row.contextParts.includes("claimed") && row.leaseUrl ? row.leaseUrl : row.issueUrl;
}

function ticketVm(id: string, row: BoardRow): NodeVm {
  const icon = MARKER_ICONS[row.marker];
  return {
    id,
    label: `#${row.number} ${row.title}`,
    description: row.runColumn,
    icon: row.spinning ? { id: "sync~spin", color: icon.color } : icon,
    tooltip: { markdown: ticketTooltip(row), trustedCommands: [] },
    contextValue: row.contextValue,
    collapsible: "none",
    command: {
      id: OPEN_COMMAND,
      title: row.leaseUrl && clickTarget(row) === row.leaseUrl ? "Open the lease comment" : "Open the issue",
      args: [clickTarget(row)],
    },
  };
}

function ticketTooltip(row: BoardRow): string {
  const lines: string[] = [`**#${row.number} ${escapeMarkdown(row.fullTitle)}**`, ""];
  lines.push(`Run: ${mdCode(row.runColumn)}`);
  if (row.labels.length) lines.push(`Labels: ${row.labels.map(mdCode).join(" ")}`);
  const l = row.lease;
  if (l) {
    const holder = `${escapeMarkdown(l.user)} on ${escapeMarkdown(l.host.name)} (${l.holder})`;
    lines.push(`Lease: ${escapeMarkdown(l.state)} · ${holder}`);
    lines.push(`Claimed ${escapeMarkdown(l.claimedAt)}${l.expiresAt ? ` · expires ${escapeMarkdown(l.expiresAt)}` : " · never goes stale (a person's claim)"}`);
    const resets = l.state === "released" ? resetTime(l.limitResetsAt) : null;
    if (resets) lines.push(`Released by a rate limit that resets ${escapeMarkdown(resets)}`);
    if (l.stage) lines.push(`Stage: ${escapeMarkdown(l.stage)}${l.stageStartedAt ? ` since ${escapeMarkdown(l.stageStartedAt)}` : ""}`);
    if (l.takeover) lines.push(`Took over (${escapeMarkdown(l.takeover.kind)}) from lease ${mdCode(l.takeover.from)}`);
  } else if (row.holder) {
    lines.push(`Held by ${escapeMarkdown(row.holder.user)}${row.holder.hostName ? ` on ${escapeMarkdown(row.holder.hostName)}` : ""} (no lease read)`);
  }
  if (row.localRunDir) lines.push(`Run directory: ${mdCode(row.localRunDir)}`);
  if (row.worktree) lines.push(`Worktree: ${mdCode(row.worktree)}`);
  for (const note of row.notes) lines.push(`⚠ ${escapeMarkdown(note)}`);
  const links = [mdLink("Open the lease comment", row.leaseUrl), mdLink("Open the issue", row.issueUrl)].filter((x): x is string => x !== null);
  if (links.length) lines.push("", links.join(" · "));
  // Two trailing spaces: a Markdown line break, so each fact stays on its own line.
  return lines.join("  \n");
}

function errorVm(node: Extract<BoardNode, { kind: "error" }>): NodeVm {
  const { error } = node;
  const when = node.fetchedAt ? ` Showing the board as of ${node.fetchedAt.toLocaleTimeString()}.` : "";
  const retry = error.retryAt ? ` GitHub asks to wait until ${error.retryAt.toLocaleTimeString()}.` : "";
  return {
    id: node.id,
    label: node.stale ? "Couldn't refresh the board, click to retry" : "Couldn't load the board, click to retry",
    description: error.message,
    icon: ERROR_ICON,
    tooltip: {
      markdown: `**${escapeMarkdown(REASON_TEXT[error.reason])}**  \n${escapeMarkdown(error.message)}${escapeMarkdown(retry + when)}\n\n[Retry](command:${RETRY_COMMAND})`,
      trustedCommands: [RETRY_COMMAND],
    },
    contextValue: "ticketRunner:error",
    collapsible: "none",
    command: { id: RETRY_COMMAND, title: "Retry", args: [] },
  };
}

const REASON_TEXT: Record<BoardError["reason"], string> = {
  unauthorized: "The token was refused",
  forbidden: "No access to the repository",
  "not-found": "Repository not found",
  "rate-limited": "Rate limit reached",
  network: "Could not reach GitHub",
  "invalid-response": "GitHub's answer could not be read",
  server: "GitHub had an error",
  "bad-config": "ticket-runner.json is not valid",
  internal: "Something went wrong in Ticket Runner",
};

/**
 * The ticket a context-menu command was run on: VS Code passes the tree element as the first
 * argument. Null for anything else (a section, the error row, a call from the Command Palette).
 */
export function ticketOfNode(arg: unknown): BoardRow | null {
  if (typeof arg !== "object" || arg === null) return null;
  const node = arg as Partial<Extract<BoardNode, { kind: "ticket" }>>;
  return node.kind === "ticket" && node.row && typeof node.row.number === "number" ? node.row : null;
}
