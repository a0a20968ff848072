/**
 * The Claude Code adapter of the AgentRunner port: one Stage is one
 *   claude -p <prompt> --output-format stream-json --verbose --permission-mode <m> --max-turns <n>
 *          [--model <model>] [--json-schema <json>]
 * run in the worktree, in its own process group, with TICKET_RUNNER_STAGE set. The executable is
 * configurable, so the same adapter runs the scripted demo agent (`node dist/demo-agent.js`).
 * Every stdout line is validated (stream-events.ts); the outcome is decided by outcome.ts.
 */
import type { AgentRunner, StageRequest, StageResult } from "../../ports/agent-runner";
import { agentEnv } from "./agent-env";
import { ClaudeStream } from "./claude-stream";
import { decideOutcome } from "./outcome";
import type { SessionFacts } from "./outcome";
import { endSession, runSessionProcess, shortCommandOf, shownEnvOf } from "./session-process";
import type { SessionRunnerOptions } from "./session-process";
import type { ResultEvent } from "./stream-events";

export type PermissionMode = "default" | "acceptEdits" | "bypassPermissions" | "plan";

export interface ClaudeCodeRunnerOptions extends SessionRunnerOptions {
  /** Executable and leading arguments. Default `["claude"]` (found on the PATH of `baseEnv`). */
  command?: readonly string[];
  /** The runner's name in logs and the UI. Default "claude". */
  name?: string;
  model?: string;
  /** Default "acceptEdits". */
  permissionMode?: PermissionMode;
}

/** Claude Code's name for each subscription limit, as its own messages say it. */
const LIMIT_NAMES: Record<string, string> = {
  five_hour: "5-hour limit",
  seven_day: "weekly limit",
  seven_day_opus: "Opus limit",
  seven_day_sonnet: "Sonnet limit",
};

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `["git", "commit"]` -> `Bash(git commit:*)`: the command and anything after it. */
function permissionRules(commands: readonly string[][]): string[] {
  return [...new Set(commands.filter((c) => c.length > 0).map((c) => `Bash(${c.map(shellWord).join(" ")}:*)`))];
}

/** One line per refused tool call: `Bash: git commit -m 'x'`. */
function denialLine(d: { tool_name: string; tool_input?: unknown }): string {
  const input = d.tool_input as Record<string, unknown> | undefined;
  const what = typeof input?.command === "string" ? input.command : typeof input?.file_path === "string" ? input.file_path : "";
  const flat = what.replace(/\s+/g, " ").trim();
  return flat ? `${d.tool_name}: ${flat.length > 200 ? flat.slice(0, 199) + "…" : flat}` : d.tool_name;
}

export class ClaudeCodeRunner implements AgentRunner {
  readonly name: string;
  private readonly command: readonly string[];

  constructor(private readonly opts: ClaudeCodeRunnerOptions = {}) {
    this.command = opts.command && opts.command.length > 0 ? opts.command : ["claude"];
    this.name = opts.name ?? "claude";
  }

  /** The argv after the executable, and where the prompt sits in it (-1: over stdin). */
  buildArgs(request: StageRequest): { args: string[]; promptIndex: number; viaStdin: boolean } {
    // argv cannot carry a NUL byte (spawn throws), and an issue body may hold one: stdin can.
    const viaStdin = request.prompt.includes("\u0000") || Buffer.byteLength(request.prompt) > (this.opts.promptArgMaxBytes ?? 100_000);
    const args = [...this.command.slice(1), "-p"];
    const promptIndex = viaStdin ? -1 : args.length;
    if (!viaStdin) args.push(request.prompt);
    args.push("--output-format", "stream-json", "--verbose");
    args.push("--permission-mode", this.opts.permissionMode ?? "acceptEdits");
    args.push("--max-turns", String(request.maxTurns));
    // Exactly the commands the Stage needs, as settings rather than a variadic --allowedTools, whose
    // parsing would swallow the next argument (ADR-0140).
    const allow = permissionRules(request.allowedCommands ?? []);
    if (allow.length > 0) args.push("--settings", JSON.stringify({ permissions: { allow } }));
    if (request.resumeSession) args.push("--resume", request.resumeSession);
    if (this.opts.model) args.push("--model", this.opts.model);
    if (request.jsonSchema) args.push("--json-schema", JSON.stringify(request.jsonSchema));
    return { args, promptIndex, viaStdin };
  }

  async run(request: StageRequest): Promise<StageResult> {
    const started = Date.now();
    const baseEnv = this.opts.baseEnv ?? process.env;
    const env = agentEnv({
      base: baseEnv,
      extra: this.opts.extraEnv,
      request: request.env,
      stage: request.stage,
      ticket: request.ticket,
      passGitHubToken: this.opts.passGitHubToken ?? false,
    });
    const executable = this.command[0]!;
    const { args, promptIndex, viaStdin } = this.buildArgs(request);
    const argv = [executable, ...args];
    this.opts.log?.debug("agent stage starting", { stage: request.stage, ticket: request.ticket, cwd: request.cwd });

    const stream = new ClaudeStream(request.cwd);

    // The process loop every agent shares: its own group, live logs, lines in time slices, kills.
    const session = await runSessionProcess({
      request,
      executable,
      args,
      promptIndex,
      stdinText: viaStdin ? request.prompt : null,
      env,
      shownEnv: shownEnvOf(env, { ...this.opts.extraEnv, ...request.env }),
      secretsEnv: { ...baseEnv, ...request.env },
      header: `ticket-runner ${request.stage} Stage of #${request.ticket}, started ${new Date(started).toISOString()} (GitHub tokens ${this.opts.passGitHubToken ? "passed" : "dropped"})`,
      shortCommand: shortCommandOf(argv, promptIndex),
      killGraceMs: this.opts.killGraceMs ?? 5000,
      maxLineBytes: this.opts.maxLineBytes,
      log: this.opts.log,
      sandbox: this.opts.sandbox,
      onLine: (text, lineNo, logs) => stream.line(text, lineNo, logs),
    });
    const { logs } = session;
    const facts: SessionFacts = {
      ...session.facts,
      timeoutMs: request.timeoutMs,
      result: stream.lastResult,
      sawRejectedRateLimit: stream.sawRejectedRateLimit,
      authFailed: stream.authFailed,
      ...(stream.lastRetryStatus !== undefined ? { lastRetryStatus: stream.lastRetryStatus } : {}),
    };

    const decision = decideOutcome(facts);
    const result = facts.result as ResultEvent | null;
    const durationMs = Date.now() - started;
    const turns = stream.turns;
    const limit = stream.rejected;
    const resetsAt = decision.outcome === "rate-limited" && limit?.resetsAt ? new Date(limit.resetsAt * 1000).toISOString() : undefined;
    const limitName = decision.outcome === "rate-limited" && limit?.rateLimitType ? (LIMIT_NAMES[limit.rateLimitType] ?? limit.rateLimitType) : undefined;
    const denials = (result?.permission_denials ?? []).map((d) => logs.redact(denialLine(d)));
    // Asked to continue a session the agent does not have: nothing ran, so a fresh one may start.
    const resumeFailed =
      Boolean(request.resumeSession) &&
      result !== null &&
      result.num_turns === 0 &&
      (result.errors ?? []).some((e) => typeof e === "string" && /no conversation found/i.test(e));
    const { text, detail } = await endSession(session, { request, decision, turns, text: result?.result ?? "", durationMs, log: this.opts.log });

    return {
      outcome: decision.outcome,
      turns,
      durationMs,
      text,
      ...(result && result.structured_output !== undefined ? { structured: result.structured_output } : {}),
      ...(detail ? { detail } : {}),
      ...(decision.rateLimitSign ? { rateLimitSign: decision.rateLimitSign } : {}),
      ...(decision.unavailable ? { unavailable: decision.unavailable } : {}),
      ...(resetsAt ? { limitResetsAt: resetsAt } : {}),
      ...(limitName ? { limitName } : {}),
      ...((stream.sessionId ?? result?.session_id) ? { sessionId: stream.sessionId ?? result?.session_id } : {}),
      ...(resumeFailed ? { resumeFailed: true } : {}),
      ...(denials.length > 0 ? { permissionDenials: denials } : {}),
      exitCode: facts.spawnError ? null : facts.exitCode,
      ...(facts.aborted ? { aborted: true } : {}),
      files: { ...logs.paths },
    };
  }
}
