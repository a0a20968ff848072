/**
 * Google's Gemini CLI as an agent (`agent.kind: "gemini"`), tested against Gemini CLI 0.61.0. A Stage:
 *   gemini -p <prompt> -o stream-json --approval-mode auto_edit --policy <stage policy> --skip-trust
 *     [-m <model>] [--session-id <uuid> | --resume <uuid>] <extra args>
 * auto_edit approves file edits inside the workspace; the policy file (written beside the Stage's
 * logs) allows exactly the shell commands a Stage needs, its git commands and the Target's Checks,
 * and the CLI denies every other command in headless mode (ADR 0200). Gemini CLI has no
 * structured-output flag: the prompt asks for the answer in a fenced block (core/run/fenced-answer.ts).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { fencedAnswerInstruction, readFencedAnswer } from "../../core/run/fenced-answer";
import type { AgentEvent } from "../../ports/agent-runner";
import { afterDelay } from "./cli-ending";
import type { CliWording } from "./cli-ending";
import { CliAgentRunner } from "./cli-agent-runner";
import type { CliAgentRunnerOptions, CliArgs, CliArgsInput, CliDialect, CliSessionReader, CliStageRequest } from "./cli-agent-runner";
import { resultSummary, toolSummary } from "./event-mapper";

export const GEMINI_WORDING: CliWording = {
  // "You exceeded your current quota…", "You have exhausted your daily quota on this model.", "Suggested retry after 3600s."
  rateLimit: /quota|rate limit|RESOURCE_EXHAUSTED|status 429|\b429\b/i,
  notSignedIn: /API key not valid|API_KEY_INVALID|GEMINI_API_KEY|Invalid auth method|Please set an Auth method|PERMISSION_DENIED|status 40[13]/i,
  providerDown: /status 5\d\d|\b50[034]\b|UNAVAILABLE|overloaded|INTERNAL|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up/i,
  resetsAt: (message, nowMs) => afterDelay(message, nowMs),
};

/** The git commands a Stage may run, whatever the Stage: read, stage, commit, finish a rebase. */
const STAGE_GIT_COMMANDS = [
  "git status",
  "git diff",
  "git log",
  "git show",
  "git ls-files",
  "git grep",
  "git add",
  "git rm",
  "git mv",
  "git restore",
  "git commit",
  "git checkout --theirs",
  "git checkout --ours",
  "git rebase --continue",
  "git rebase --skip",
] as const;

/** The Gemini CLI policy (TOML) for a Stage: the git commands above and each Check, nothing more. */
export function geminiPolicy(checks: readonly (readonly string[])[]): string {
  const prefixes = [...STAGE_GIT_COMMANDS, ...checks.map((argv) => argv.join(" "))];
  return [
    "# Written by ticket-runner for one Stage: the commands it may run without asking (docs/agents.md).",
    "[[rule]]",
    'toolName = "run_shell_command"',
    `commandPrefix = [${prefixes.map((p) => JSON.stringify(p)).join(", ")}]`,
    'decision = "allow"',
    "priority = 100",
    "",
  ].join("\n");
}

const lineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("init"), session_id: z.string().min(1), model: z.string() }).passthrough(),
  z.object({ type: z.literal("message"), role: z.string(), content: z.string(), delta: z.boolean().optional() }).passthrough(),
  z.object({ type: z.literal("tool_use"), tool_name: z.string(), tool_id: z.string(), parameters: z.record(z.unknown()).optional() }).passthrough(),
  z
    .object({
      type: z.literal("tool_result"),
      tool_id: z.string(),
      status: z.string(),
      output: z.string().optional(),
      error: z.object({ message: z.string() }).passthrough().optional(),
    })
    .passthrough(),
  z.object({ type: z.literal("error"), message: z.string(), severity: z.string().optional() }).passthrough(),
  z.object({ type: z.literal("result"), status: z.string(), error: z.object({ message: z.string() }).passthrough().optional() }).passthrough(),
]);

type GeminiLine = z.infer<typeof lineSchema>;

/** Gemini's tool names as the transcript shows them (the same words whichever agent ran). */
const TOOL_NAMES: Record<string, string> = {
  write_file: "Write",
  read_file: "Read",
  replace: "Edit",
  run_shell_command: "Bash",
  glob: "Glob",
  grep_search: "Grep",
  list_directory: "LS",
  web_fetch: "WebFetch",
  google_web_search: "WebSearch",
};

export function geminiEvents(line: GeminiLine, cwd: string): AgentEvent[] {
  switch (line.type) {
    case "init":
      return [{ kind: "init", model: line.model, sessionId: line.session_id }];
    case "message":
      return line.role === "assistant" && line.content ? [{ kind: "text", text: line.content }] : [];
    case "tool_use": {
      const name = TOOL_NAMES[line.tool_name] ?? line.tool_name;
      const input = line.parameters ?? {};
      return [{ kind: "tool", name, summary: toolSummary(name, "dir_path" in input && !("path" in input) ? { ...input, path: input.dir_path } : input, cwd) }];
    }
    case "tool_result":
      return [{ kind: "tool-result", summary: resultSummary(line.error?.message ?? line.output ?? line.status), isError: line.status !== "success" }];
    case "error":
      return [{ kind: "text", text: `⚠ ${line.message}` }];
    case "result":
      return [];
  }
}

class GeminiReader implements CliSessionReader {
  private sessionId: string | undefined;
  private completed = false;
  private failures: string[] = [];
  private tools = 0;
  private capped = false;
  /** The assistant's messages arrive as deltas; the last message is what follows the last tool call. */
  private since = "";

  constructor(
    private readonly request: CliStageRequest,
    private readonly cwd: string,
  ) {}

  onLine(text: string, lineNo: number): { events: AgentEvent[]; damage?: string; stop?: boolean } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { events: [], damage: `line ${lineNo} is not JSON` };
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) {
      const type = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined;
      if (typeof type === "string" && !lineSchema.options.some((o) => o.shape.type.value === type))
        return { events: [{ kind: "ignored", reason: `gemini event type ${type}` }] };
      const first = parsed.error.issues[0];
      return { events: [], damage: `line ${lineNo} (${String(type)}) is invalid at ${first?.path.join(".") || "(line)"}: ${first?.message ?? "?"}` };
    }
    const line = parsed.data;
    let stop = false;
    if (line.type === "init") this.sessionId = line.session_id;
    if (line.type === "message" && line.role === "assistant") this.since += line.content;
    if (line.type === "tool_use") {
      this.since = "";
      this.tools += 1;
      if (this.tools > this.request.maxTurns && !this.capped) {
        this.capped = true;
        stop = true;
      }
    }
    if (line.type === "error") this.failures.push(line.message);
    if (line.type === "result") {
      if (line.status === "success") this.completed = true;
      else if (/max session turns/i.test(line.error?.message ?? "")) this.capped = true;
      else this.failures.push(line.error?.message ?? `result ${line.status}`);
    }
    return { events: geminiEvents(line, this.cwd), stop };
  }

  end(): ReturnType<CliSessionReader["end"]> {
    const answer = this.request.jsonSchema ? readFencedAnswer(this.since) : null;
    return {
      completed: this.completed,
      failures: this.completed ? [] : this.failures,
      turns: this.tools + (this.since ? 1 : 0),
      turnCapped: this.capped,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
      text: this.since,
      ...(answer?.ok ? { structured: answer.value } : {}),
    };
  }
}

export interface GeminiDialectOptions {
  model?: string;
  extraArgs?: readonly string[];
  /** The Target's Checks: the policy lets the agent run them. */
  checks?: readonly (readonly string[])[];
}

export function geminiDialect(opts: GeminiDialectOptions): CliDialect {
  return {
    executable: "gemini",
    wording: GEMINI_WORDING,
    env: { GIT_EDITOR: "true" },
    prompt: (request) => (request.jsonSchema ? request.prompt + "\n" + fencedAnswerInstruction(request.jsonSchema) : request.prompt),
    buildArgs({ request, viaStdin }: CliArgsInput): CliArgs {
      const policy = join(request.logDir, `${request.logName}.policy.toml`);
      mkdirSync(request.logDir, { recursive: true });
      writeFileSync(policy, geminiPolicy(opts.checks ?? []));
      // -p "" reads the prompt from stdin (the CLI appends stdin to -p).
      const args = ["-p"];
      const promptIndex = viaStdin ? -1 : args.length;
      args.push(viaStdin ? "" : request.prompt);
      args.push("-o", "stream-json", "--approval-mode", "auto_edit", "--policy", policy, "--skip-trust");
      if (opts.model) args.push("-m", opts.model);
      // A new session gets its id up front, so even a session killed before its first line can be resumed.
      args.push(...(request.resumeSession ? ["--resume", request.resumeSession] : ["--session-id", randomUUID()]));
      args.push(...(opts.extraArgs ?? []));
      return { args, promptIndex };
    },
    reader: (request, cwd) => new GeminiReader(request, cwd),
  };
}

export function createGeminiRunner(opts: Omit<CliAgentRunnerOptions, "name"> & { name?: string; checks?: readonly (readonly string[])[] }): CliAgentRunner {
  return new CliAgentRunner(geminiDialect({ model: opts.model, extraArgs: opts.extraArgs, checks: opts.checks }), { ...opts, name: opts.name ?? "gemini" });
}
