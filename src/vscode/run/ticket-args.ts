// No `vscode` import: which ticket a command was invoked on, unit-tested without a VS Code.
import { Refusal } from "../../core/errors";

/**
 * The ticket number a command's arguments name. Commands are invoked from the board (a tree node
 * `{ kind: "ticket", row: { number } }`), from a Markdown link (`[42]`), from tests (`42` or
 * `{ ticket: 42 }`), or from the Command Palette (no argument: the caller asks with a picker).
 * Anything else is undefined, never a guess.
 */
export function ticketFromArgs(args: readonly unknown[]): number | undefined {
  const [first] = args;
  return ticketOf(first);
}

function ticketOf(value: unknown): number | undefined {
  if (typeof value === "number") return valid(value);
  if (typeof value === "string") {
    const m = /^#?(\d{1,9})$/.exec(value.trim());
    return m ? valid(Number(m[1])) : undefined;
  }
  if (Array.isArray(value)) return ticketOf(value[0]);
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if ("ticket" in o) return ticketOf(o["ticket"]);
    if ("number" in o) return ticketOf(o["number"]);
    if ("row" in o) return ticketOf(o["row"]);
  }
  return undefined;
}

function valid(n: number): number | undefined {
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The board row's own facts, when the command came from a board row. */
export interface RowFacts {
  issueUrl?: string;
  leaseUrl?: string | null;
  worktree?: string | null;
  title?: string;
}

export function rowFromArgs(args: readonly unknown[]): RowFacts {
  const first = args[0];
  if (!first || typeof first !== "object" || !("row" in first)) return {};
  const row = (first as { row: unknown }).row;
  if (!row || typeof row !== "object") return {};
  const r = row as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
  return {
    issueUrl: str(r["issueUrl"]),
    leaseUrl: str(r["leaseUrl"]) ?? null,
    worktree: str(r["worktree"]) ?? null,
    title: str(r["fullTitle"]) ?? str(r["title"]),
  };
}

/** The ticket a command acts on, or the refusal that says where to use it from. */
export function requireTicket(args: readonly unknown[], what: string, alsoFrom?: string): number {
  const n = ticketFromArgs(args);
  if (n === undefined)
    throw new Refusal("bad-input", `${what} acts on a ticket: use it from a ticket's context menu on the Board${alsoFrom ? `, or ${alsoFrom}` : ""}.`);
  return n;
}
