/**
 * Reading the product's own records (State files, lock files) off a branch. Anything that does not
 * parse is described, with its path and a summary of its content, and left exactly as it is.
 */
import { STATE_FORMAT, stateFileSchema } from "../../core/schemas/state-file";
import type { StateFile } from "../../core/schemas/state-file";
import { isTicketBranch } from "./slug";

/** A short, printable picture of a file's content for an error message. */
export function contentSummary(content: Buffer | string, max = 120): string {
  const text = typeof content === "string" ? content : content.toString("utf8");
  const size = Buffer.byteLength(text);
  const flat = text.replace(/\s+/g, " ").trim();
  const shown = flat.length > max ? `${flat.slice(0, max)}...` : flat;
  return `${size} bytes: ${JSON.stringify(shown)}`;
}

export type StateParse = { ok: true; state: StateFile } | { ok: false; reason: string; writtenBy: string | null };

const STATE_NAME = /^ticket-([1-9][0-9]*)\.json$/;

/** The ticket a State file's name is for, or null when the name is not a State file's. */
export function stateFileTicket(path: string): number | null {
  const m = STATE_NAME.exec(path);
  return m ? Number(m[1]) : null;
}

export function stateFilePath(ticket: number): string {
  return `ticket-${ticket}.json`;
}

export function parseStateFile(path: string, ticket: number, content: Buffer | string): StateParse {
  const text = typeof content === "string" ? content : content.toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `${path} is not JSON (${(e as Error).message}); content ${contentSummary(text)}`, writtenBy: null };
  }
  const obj = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  const writtenBy = obj && typeof obj.version === "string" ? obj.version : null;
  if (!obj) return { ok: false, reason: `${path} is not a JSON object; content ${contentSummary(text)}`, writtenBy };
  if (typeof obj.format === "number" && obj.format > STATE_FORMAT) {
    return { ok: false, reason: `${path} has format ${obj.format}, newer than this version reads (${STATE_FORMAT})`, writtenBy };
  }
  // Unknown fields mean a newer writer: rewriting the file here would silently drop them.
  const parsed = stateFileSchema.strict().safeParse(obj);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) =>
      i.code === "unrecognized_keys" ? `unknown fields ${i.keys.join(", ")}` : `${i.path.join(".") || "(root)"}: ${i.message}`,
    );
    return { ok: false, reason: `${path} does not read as a State file (${issues.join("; ")}); content ${contentSummary(text)}`, writtenBy };
  }
  if (parsed.data.ticket !== ticket) {
    return { ok: false, reason: `${path} names ticket ${parsed.data.ticket}, not ${ticket}`, writtenBy };
  }
  // Anyone who can push writes this file: it may only send the Run to the ticket's own branch.
  if (!isTicketBranch(ticket, parsed.data.branch)) {
    return {
      ok: false,
      reason: `${path} names the branch ${JSON.stringify(parsed.data.branch.slice(0, 100))}, which is not ticket ${ticket}'s own agent/${ticket}-… branch; the Run never works on another branch for it (the base included)`,
      writtenBy,
    };
  }
  return { ok: true, state: parsed.data };
}

/** What a State file looks like on the branch: readable by a person without the pipeline. */
export function serializeState(state: StateFile): string {
  const { format: _format, ...rest } = state;
  return `${JSON.stringify({ ...rest, format: STATE_FORMAT }, null, 2)}\n`;
}
