/**
 * The AgentRunner for coding-agent CLIs other than Claude Code (Codex, Gemini CLI): one Stage is
 * one headless session of the CLI in the worktree. What differs per CLI (its argv, how its lines
 * read, how it words a limit) is its `CliDialect`; the process, logs, endings and result are here,
 * the same for every CLI. A Stage given `resumeSession` continues that session (the CLI's own resume).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AgentEvent, AgentRunner, StageRequest, StageResult } from "../../ports/agent-runner";
import { agentEnv } from "./agent-env";
import { decideCliEnding } from "./cli-ending";
import type { CliUnavailableReason, CliWording } from "./cli-ending";
import { endSession, runSessionProcess, shortCommandOf, shownEnvOf } from "./session-process";
import type { SessionRunnerOptions } from "./session-process";

export interface CliStageRequest extends StageRequest {
  /** The CLI's session id to continue instead of starting a new session. */
  resumeSession?: string;
}

export interface CliStageResult extends StageResult {
  /** The CLI's session id, for a later resume. */
  sessionId?: string;
  /** When the limit that stopped the Stage resets (ISO 8601), if the CLI said. */
  limitResetsAt?: string;
  /** Set when the agent itself is unavailable (not signed in, bad key, missing, provider down): not the ticket's fault. */
  unavailable?: CliUnavailableReason;
}

export interface CliArgsInput {
  request: CliStageRequest;
  /** Where the Stage's JSON schema was written, when it has one. */
  schemaFile: string | null;
  /** Prompts over the argv limit (or holding a NUL) go over stdin. */
  viaStdin: boolean;
}

export interface CliArgs {
  args: string[];
  /** Index in args of the prompt; -1 when it goes over stdin. */
  promptIndex: number;
}

/** What one session's lines said, read as they come. */
export interface CliSessionReader {
  onLine(text: string, lineNo: number): { events: AgentEvent[]; damage?: string; stop?: boolean };
  end(): { completed: boolean; failures: string[]; turns: number; turnCapped: boolean; sessionId?: string; text: string; structured?: unknown };
}

export interface CliDialect {
  /** The executable's default name on the PATH. */
  executable: string;
  wording: CliWording;
  /** The prompt, with anything this CLI needs appended (e.g. the fenced-answer instruction). */
  prompt(request: CliStageRequest): string;
  /** May look at the worktree first (asynchronously: the Run shares the extension host's event loop). */
  buildArgs(input: CliArgsInput): CliArgs | Promise<CliArgs>;
  reader(request: CliStageRequest, cwd: string): CliSessionReader;
  /** Environment this CLI needs besides the runner's own (e.g. GIT_EDITOR). */
  env?: Record<string, string>;
}

export interface CliAgentRunnerOptions extends SessionRunnerOptions {
  /** Executable and leading arguments. Default: the dialect's executable on the PATH. */
  command?: readonly string[];
  name: string;
  model?: string;
  /** Added after the runner's own arguments (config's `agent.args`). */
  extraArgs?: readonly string[];
  now?: () => number;
}

export class CliAgentRunner implements AgentRunner {
  readonly name: string;
  private readonly command: readonly string[];

  constructor(
    private readonly dialect: CliDialect,
    private readonly opts: CliAgentRunnerOptions,
  ) {
    this.command = opts.command && opts.command.length > 0 ? opts.command : [dialect.executable];
    this.name = opts.name;
  }

  /** The argv after the executable (exposed for tests and the `.command` file). */
  async argsFor(request: CliStageRequest, schemaFile: string | null): Promise<{ args: string[]; promptIndex: number; prompt: string; viaStdin: boolean }> {
    const prompt = this.dialect.prompt(request);
    const viaStdin = prompt.includes("\u0000") || Buffer.byteLength(prompt) > (this.opts.promptArgMaxBytes ?? 100_000);
    const built = await this.dialect.buildArgs({ request: { ...request, prompt }, schemaFile, viaStdin });
    const lead = this.command.slice(1);
    return { args: [...lead, ...built.args], promptIndex: built.promptIndex === -1 ? -1 : lead.length + built.promptIndex, prompt, viaStdin };
  }

  async run(request: CliStageRequest): Promise<CliStageResult> {
    const now = this.opts.now ?? Date.now;
    const started = now();
    const baseEnv = this.opts.baseEnv ?? process.env;
    const env = agentEnv({
      base: baseEnv,
      extra: { ...this.dialect.env, ...this.opts.extraEnv },
      request: request.env,
      stage: request.stage,
      ticket: request.ticket,
      passGitHubToken: this.opts.passGitHubToken ?? false,
    });
    let schemaFile: string | null = null;
    if (request.jsonSchema) {
      schemaFile = join(request.logDir, `${request.logName}.schema.json`);
      mkdirSync(dirname(schemaFile), { recursive: true });
      writeFileSync(schemaFile, JSON.stringify(request.jsonSchema, null, 2));
    }
    const { args, promptIndex, prompt, viaStdin } = await this.argsFor(request, schemaFile);
    const executable = this.command[0]!;
    const reader = this.dialect.reader(request, request.cwd);

    const session = await runSessionProcess({
      request: { ...request, prompt },
      executable,
      args,
      promptIndex,
      stdinText: viaStdin ? prompt : null,
      env,
      shownEnv: shownEnvOf(env, { ...this.dialect.env, ...this.opts.extraEnv, ...request.env }),
      secretsEnv: { ...baseEnv, ...request.env },
      header: `ticket-runner ${request.stage} Stage of #${request.ticket}${request.resumeSession ? ` (resuming session ${request.resumeSession})` : ""}, started ${new Date(started).toISOString()} (GitHub tokens ${this.opts.passGitHubToken ? "passed" : "dropped"})`,
      shortCommand: shortCommandOf([executable, ...args], promptIndex),
      killGraceMs: this.opts.killGraceMs ?? 5000,
      maxLineBytes: this.opts.maxLineBytes,
      log: this.opts.log,
      sandbox: this.opts.sandbox,
      onLine: (text, lineNo, logs) => {
        const out = reader.onLine(text, lineNo);
        if (!out.damage) logs.transcriptLine(text);
        return out;
      },
    });
    const { facts, logs } = session;
    const seen = reader.end();
    const ending = decideCliEnding(
      {
        ...facts,
        timeoutMs: request.timeoutMs,
        completed: seen.completed,
        failures: seen.failures,
        turns: seen.turns,
        turnCapped: seen.turnCapped,
        maxTurns: request.maxTurns,
      },
      this.dialect.wording,
      now(),
    );
    // Unavailable is the port's own outcome: the environment's fault, not the ticket's (ADR-0141).
    const decision = ending.unavailable !== undefined ? { ...ending, outcome: "unavailable" as const } : ending;
    const durationMs = now() - started;
    const { text, detail } = await endSession(session, {
      request,
      decision,
      turns: seen.turns,
      text: seen.text,
      durationMs,
      record: { session_id: seen.sessionId ?? null },
      logged: { agent: this.name },
      log: this.opts.log,
    });
    return {
      outcome: decision.outcome,
      turns: seen.turns,
      durationMs,
      text,
      ...(seen.structured !== undefined ? { structured: seen.structured } : {}),
      ...(detail ? { detail } : {}),
      ...(decision.rateLimitSign ? { rateLimitSign: decision.rateLimitSign } : {}),
      ...(decision.resetsAt !== undefined ? { limitResetsAt: new Date(decision.resetsAt).toISOString() } : {}),
      ...(decision.unavailable !== undefined ? { unavailable: decision.unavailable } : {}),
      ...(seen.sessionId ? { sessionId: seen.sessionId } : {}),
      exitCode: facts.spawnError ? null : facts.exitCode,
      ...(facts.aborted ? { aborted: true } : {}),
      files: { ...logs.paths },
    };
  }
}
