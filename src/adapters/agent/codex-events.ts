/**
 * The lines `codex exec --json` prints (Codex CLI 0.171.0; fixtures in test/fixtures/codex-streams/),
 * validated with zod, and what each shows in a transcript. Tool items read as Claude's do:
 * a command is `Bash <command>`, a file change `Edit <path>`. Unknown types are ignored, named.
 */
import { z } from "zod";
import type { AgentEvent } from "../../ports/agent-runner";
import { oneLine } from "../../core/text/lines";
import { resultSummary, toolSummary } from "./event-mapper";

const itemSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    text: z.string().optional(),
    message: z.string().optional(),
    command: z.string().optional(),
    aggregated_output: z.string().optional(),
    exit_code: z.number().int().nullable().optional(),
    status: z.string().optional(),
    changes: z.array(z.object({ path: z.string(), kind: z.string().optional() }).passthrough()).optional(),
  })
  .passthrough();

const codexLineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("thread.started"), thread_id: z.string().min(1) }).passthrough(),
  z.object({ type: z.literal("turn.started") }).passthrough(),
  z.object({ type: z.literal("turn.completed"), usage: z.record(z.unknown()).optional() }).passthrough(),
  z.object({ type: z.literal("turn.failed"), error: z.object({ message: z.string() }).passthrough() }).passthrough(),
  z.object({ type: z.literal("error"), message: z.string() }).passthrough(),
  z.object({ type: z.literal("item.started"), item: itemSchema }).passthrough(),
  z.object({ type: z.literal("item.updated"), item: itemSchema }).passthrough(),
  z.object({ type: z.literal("item.completed"), item: itemSchema }).passthrough(),
]);

export type CodexLine = z.infer<typeof codexLineSchema>;
export type CodexItem = z.infer<typeof itemSchema>;

export type ParsedCodexLine = { kind: "line"; line: CodexLine } | { kind: "unknown"; type: string } | { kind: "damage"; reason: string };

export function parseCodexLine(text: string, lineNo: number): ParsedCodexLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "damage", reason: `line ${lineNo} is not JSON` };
  }
  const parsed = codexLineSchema.safeParse(json);
  if (parsed.success) return { kind: "line", line: parsed.data };
  const type = typeof json === "object" && json !== null && typeof (json as { type?: unknown }).type === "string" ? (json as { type: string }).type : null;
  const known = codexLineSchema.options.some((o) => o.shape.type.value === type);
  if (type !== null && !known) return { kind: "unknown", type };
  const first = parsed.error.issues[0];
  return { kind: "damage", reason: `line ${lineNo} (${type ?? "no type"}) is invalid at ${first?.path.join(".") || "(line)"}: ${first?.message ?? "?"}` };
}

/** `/bin/bash -lc '<cmd>'` -> `<cmd>`: the transcript shows what the agent asked to run. */
export function innerCommand(command: string): string {
  const m = /^\S*\/(?:ba|z)?sh -l?c (['"])([\s\S]*)\1$/.exec(command);
  if (!m) return command;
  return m[1] === "'" ? m[2]!.replace(/'\\''/g, "'") : m[2]!.replace(/\\(["\\$`])/g, "$1");
}

/** Tool items count as turns: Codex has no turn count of its own. */
export function isToolItem(item: CodexItem): boolean {
  return item.type === "command_execution" || item.type === "file_change" || item.type === "mcp_tool_call" || item.type === "web_search";
}

export function codexEvents(line: CodexLine, cwd: string, model: string): AgentEvent[] {
  switch (line.type) {
    case "thread.started":
      return [{ kind: "init", model, sessionId: line.thread_id }];
    case "item.started": {
      const item = line.item;
      if (item.type === "command_execution")
        return [{ kind: "tool", name: "Bash", summary: toolSummary("Bash", { command: innerCommand(item.command ?? "") }, cwd) }];
      return [];
    }
    case "item.completed": {
      const item = line.item;
      switch (item.type) {
        case "agent_message":
          return item.text ? [{ kind: "text", text: item.text }] : [];
        case "command_execution":
          return [
            { kind: "tool-result", summary: resultSummary(item.aggregated_output ?? ""), isError: item.status !== "completed" || (item.exit_code ?? 0) !== 0 },
          ];
        case "file_change":
          return (item.changes ?? []).map(
            (c) => ({ kind: "tool", name: c.kind === "add" ? "Write" : "Edit", summary: toolSummary("Edit", { file_path: c.path }, cwd) }) as AgentEvent,
          );
        case "error":
          return [{ kind: "text", text: `⚠ ${oneLine(item.message ?? "")}` }];
        case "reasoning":
          return [];
        default:
          return [{ kind: "ignored", reason: `codex item type ${item.type}` }];
      }
    }
    case "error":
      return [{ kind: "text", text: `⚠ ${oneLine(line.message)}` }];
    default:
      return [];
  }
}
