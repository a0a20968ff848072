/**
 * Turns validated Claude Code events into the port's AgentEvents: what a person watching the
 * transcript wants to see. Tool calls become one line (`Edit src/discount.ts`, `Bash npm test`),
 * tool results a short summary. Pure: no I/O.
 */
import type { AgentEvent } from "../../ports/agent-runner";
import { oneLine } from "../../core/text/lines";
import type { ParsedLine } from "./stream-events";
import { textBlockSchema, toolResultBlockSchema, toolUseBlockSchema } from "./stream-events";

function stringField(input: unknown, key: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * Shows a path relative to the worktree when it is inside it. `cwd` may list several roots
 * separated by NUL: the Stage's cwd and the cwd the agent reported in its init event (they differ
 * through symlinks such as /tmp -> /private/tmp).
 */
function relPath(p: string, cwd: string): string {
  for (const root of cwd.split("\0")) {
    if (!root) continue;
    const base = root.endsWith("/") ? root : root + "/";
    if (p.startsWith(base)) return p.slice(base.length);
  }
  return p;
}

/** The argument that says what a tool call does, per tool; unknown tools show their first string argument. */
export function toolSummary(name: string, input: unknown, cwd: string): string {
  const path = stringField(input, "file_path") ?? stringField(input, "notebook_path") ?? stringField(input, "path");
  switch (name) {
    case "Edit":
    case "MultiEdit":
    case "Write":
    case "Read":
    case "NotebookEdit":
      return path ? relPath(path, cwd) : "";
    case "Bash": {
      const command = stringField(input, "command") ?? "";
      return oneLine(command.split("\n")[0] ?? "");
    }
    case "Grep": {
      const pattern = stringField(input, "pattern") ?? "";
      return oneLine(path ? `${JSON.stringify(pattern)} in ${relPath(path, cwd)}` : JSON.stringify(pattern));
    }
    case "Glob":
      return oneLine(stringField(input, "pattern") ?? "");
    case "WebFetch":
      return oneLine(stringField(input, "url") ?? "");
    case "WebSearch":
      return oneLine(stringField(input, "query") ?? "");
    case "Task":
    case "Agent":
      return oneLine(stringField(input, "description") ?? "");
    case "TodoWrite": {
      const todos = typeof input === "object" && input !== null ? (input as Record<string, unknown>).todos : undefined;
      return Array.isArray(todos) ? `${todos.length} item${todos.length === 1 ? "" : "s"}` : "";
    }
    default: {
      if (typeof input === "object" && input !== null) {
        const first = Object.values(input as Record<string, unknown>).find((v) => typeof v === "string");
        if (typeof first === "string") return oneLine(first);
      }
      return "";
    }
  }
}

/** `3 lines: first line…` style summary of a tool result's content. */
export function resultSummary(content: unknown): string {
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .map((block) =>
        typeof block === "object" && block !== null && typeof (block as { text?: unknown }).text === "string" ? (block as { text: string }).text : "",
      )
      .filter((t) => t.length > 0)
      .join("\n");
  }
  const lines = text.split("\n").filter((l) => l.trim().length > 0);
  if (lines.length === 0) return "(no output)";
  const first = oneLine(lines[0]!, 120);
  return lines.length === 1 ? first : `${first} (+${lines.length - 1} more line${lines.length === 2 ? "" : "s"})`;
}

/**
 * The AgentEvents for one parsed line. `result` and `damage` lines yield nothing here: the runner
 * reports the Stage's outcome once, after the process has exited.
 */
export function toAgentEvents(parsed: ParsedLine, cwd: string): AgentEvent[] {
  switch (parsed.kind) {
    case "system": {
      const e = parsed.event;
      if (e.subtype === "init" && e.model && e.session_id) return [{ kind: "init", model: e.model, sessionId: e.session_id }];
      return [{ kind: "ignored", reason: `system event ${JSON.stringify(e.subtype)}` }];
    }
    case "assistant": {
      const out: AgentEvent[] = [];
      for (const block of parsed.event.message.content) {
        if (block.type === "text") {
          const t = textBlockSchema.safeParse(block);
          if (t.success && t.data.text.trim().length > 0) out.push({ kind: "text", text: t.data.text });
        } else if (block.type === "tool_use") {
          const t = toolUseBlockSchema.safeParse(block);
          if (t.success) out.push({ kind: "tool", name: t.data.name, summary: toolSummary(t.data.name, t.data.input, cwd) });
          else out.push({ kind: "ignored", reason: "tool_use block without id/name" });
        } else {
          // thinking, redacted_thinking, server tool blocks: not shown.
          out.push({ kind: "ignored", reason: `assistant block ${JSON.stringify(block.type)}` });
        }
      }
      return out;
    }
    case "user": {
      const content = parsed.event.message.content;
      if (typeof content === "string") return [];
      const out: AgentEvent[] = [];
      for (const block of content) {
        if (block.type !== "tool_result") continue;
        const t = toolResultBlockSchema.safeParse(block);
        if (t.success) out.push({ kind: "tool-result", summary: resultSummary(t.data.content), isError: t.data.is_error === true });
      }
      return out;
    }
    case "rate-limit":
      return [{ kind: "rate-limit", status: parsed.event.rate_limit_info.status }];
    case "ignored":
      return [{ kind: "ignored", reason: parsed.reason }];
    case "result":
    case "damage":
      return [];
  }
}
