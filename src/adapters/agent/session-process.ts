/**
 * One agent session as a process, whatever the agent: spawned in its own process group in the
 * worktree, its `.command` written first, stdout read line by line in time slices (a flood never
 * blocks the host's event loop), stderr kept in a tail, the group killed on the time limit or an
 * abort, every stragglers reaped when the leader exits. What a line means is the agent's own
 * business (`onLine`); what the session's ending means is decided by the caller from the facts.
 */
import type { AgentEvent, RateLimitSign, StageOutcome, StageRequest } from "../../ports/agent-runner";
import type { Log } from "../../ports/log";
import { LineSplitter, DEFAULT_MAX_LINE_BYTES } from "./line-splitter";
import type { SplitLine } from "./line-splitter";
import { reapGroup, spawnGroup } from "./process-group";
import { SlicedQueue } from "./sliced-queue";
import { StageLogs } from "./stage-logs";
import { findExecutable } from "../isolation/sandbox";
import type { Sandbox } from "../isolation/sandbox";

const STDERR_TAIL_BYTES = 16 * 1024;

export interface ProcessFacts {
  aborted: boolean;
  timedOut: boolean;
  exitCode: number | null;
  signal: string | null;
  /** Why the stream is not trustworthy (over-long or non-UTF-8 lines, or what `onLine` reported). */
  damage: string[];
  stderrTail: string;
  /** The executable could not be started at all. */
  spawnError: string | null;
  /** The executable is not there (ENOENT). */
  spawnMissing: boolean;
}

/** What every agent runner takes for its sessions' process, whatever the agent. */
export interface SessionRunnerOptions {
  /** Pass GITHUB_TOKEN / GH_TOKEN / TICKET_RUNNER_TOKEN to the agent. Default false. */
  passGitHubToken?: boolean;
  /** The environment the agent's is built from, and whose secrets are redacted. Default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Added to every Stage's environment (before the request's own `env`). */
  extraEnv?: Record<string, string>;
  /** Between SIGTERM and SIGKILL of the group. Default 5000 ms. */
  killGraceMs?: number;
  /** A stdout line longer than this fails the Stage as invalid-result. Default 10 MiB. */
  maxLineBytes?: number;
  /** Prompts longer than this (bytes) go over stdin: one argv element is capped at 128 KiB on Linux. Default 100 000. */
  promptArgMaxBytes?: number;
  log?: Log;
  /** The OS sandbox the agent runs in (ADR 0290); none: as the Run's user, beside the Run. */
  sandbox?: Sandbox;
}

export interface SessionProcessInput {
  request: StageRequest;
  executable: string;
  args: string[];
  /** Index in `args` of the prompt (-1: none, e.g. sent over stdin). */
  promptIndex: number;
  stdinText: string | null;
  env: Record<string, string>;
  /** Shown before the command in `.command`: the variables the runner set. */
  shownEnv: Record<string, string>;
  /** The secrets to redact come from here. */
  secretsEnv: NodeJS.ProcessEnv;
  header: string;
  /** The one-line command of the transcript's start event (prompt and schema named, not shown). */
  shortCommand: string;
  killGraceMs: number;
  maxLineBytes?: number;
  log?: Log;
  /** The OS sandbox the agent runs in (ADR 0290). */
  sandbox?: Sandbox;
  /** One valid UTF-8 stdout line; returns the events it shows, or a damage reason; `stop` ends the session (a cap the runner enforces). Called in order. */
  onLine(text: string, lineNo: number, logs: StageLogs): { events: AgentEvent[]; damage?: string; stop?: boolean };
}

export interface SessionProcess {
  facts: ProcessFacts;
  logs: StageLogs;
  /** Sends an event to the request's consumer, redacted; a consumer's throw is logged, not raised. */
  emit(event: AgentEvent): void;
}

function redactEvent(e: AgentEvent, redact: (s: string) => string): AgentEvent {
  switch (e.kind) {
    case "text":
      return { ...e, text: redact(e.text) };
    case "tool":
      return { ...e, summary: redact(e.summary) };
    case "tool-result":
      return { ...e, summary: redact(e.summary) };
    case "ignored":
      return { ...e, reason: redact(e.reason) };
    default:
      return e;
  }
}

/** What a Stage's `.command` file shows before the command: the Stage and ticket, and each variable the runner added that reached the agent. */
export function shownEnvOf(env: Record<string, string>, added: Record<string, string>): Record<string, string> {
  const shown: Record<string, string> = { TICKET_RUNNER_STAGE: env.TICKET_RUNNER_STAGE!, TICKET_RUNNER_TICKET: env.TICKET_RUNNER_TICKET! };
  for (const [k, v] of Object.entries(added)) if (env[k] !== undefined) shown[k] = v;
  return shown;
}

/** The transcript's one-line command: the prompt and a JSON schema are named, not shown. */
export function shortCommandOf(argv: readonly string[], promptIndex: number): string {
  return argv.map((a, i) => (promptIndex !== -1 && i === promptIndex + 1 ? "<prompt>" : argv[i - 1] === "--json-schema" ? "<json-schema>" : a)).join(" ");
}

/** Runs the session to its end. Never throws for the agent's failure: the facts say what happened. */
export async function runSessionProcess(input: SessionProcessInput): Promise<SessionProcess> {
  const { request } = input;
  const logs = new StageLogs(request.logDir, request.logName, input.secretsEnv);
  const emit = (e: AgentEvent): void => {
    try {
      request.onEvent?.(redactEvent(e, (s) => logs.redact(s)));
    } catch (error) {
      input.log?.warn("agent transcript consumer threw", { error: String(error) });
    }
  };
  const argv = [input.executable, ...input.args];
  logs.writeCommand({
    argv,
    promptIndex: input.promptIndex === -1 ? -1 : input.promptIndex + 1,
    prompt: request.prompt,
    cwd: request.cwd,
    shownEnv: input.shownEnv,
    header: input.header,
    promptViaStdin: input.stdinText !== null,
  });
  emit({ kind: "start", stage: request.stage, ticket: request.ticket, command: logs.redact(input.shortCommand) });

  const facts: ProcessFacts = {
    aborted: false,
    timedOut: false,
    exitCode: null,
    signal: null,
    damage: [],
    stderrTail: "",
    spawnError: null,
    spawnMissing: false,
  };
  const maxLine = input.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const onStdoutLine = (line: SplitLine): void => {
    if (line.kind === "oversize") {
      facts.damage.push(`line ${line.lineNo} is ${line.bytes} bytes, over the ${maxLine}-byte limit`);
      logs.stdoutLine(`[ticket-runner: line ${line.lineNo} of ${line.bytes} bytes dropped: over the line limit]`);
      emit({ kind: "ignored", reason: `line ${line.lineNo}: ${line.bytes} bytes, over the line limit` });
      return;
    }
    if (line.kind === "invalid-utf8") {
      facts.damage.push(`line ${line.lineNo} is not valid UTF-8`);
      logs.stdoutLine(line.lossy);
      emit({ kind: "ignored", reason: `line ${line.lineNo}: not valid UTF-8` });
      return;
    }
    logs.stdoutLine(line.text);
    const out = input.onLine(line.text, line.lineNo, logs);
    if (out.damage) {
      facts.damage.push(out.damage);
      emit({ kind: "ignored", reason: out.damage });
    }
    for (const e of out.events) emit(e);
    if (out.stop) stopGroup();
  };
  let stopGroup = (): void => undefined;
  let pauseStdout = (): void => undefined;
  let resumeStdout = (): void => undefined;
  const stdoutQueue = new SlicedQueue<SplitLine>(onStdoutLine, { onHigh: () => pauseStdout(), onLow: () => resumeStdout() });
  const stdoutSplitter = new LineSplitter((line) => stdoutQueue.push(line), maxLine);
  const stderrSplitter = new LineSplitter((line) => {
    const text = line.kind === "line" ? line.text : line.kind === "invalid-utf8" ? line.lossy : `[ticket-runner: stderr line of ${line.bytes} bytes dropped]`;
    logs.stderrLine(text);
    facts.stderrTail = (facts.stderrTail + text + "\n").slice(-STDERR_TAIL_BYTES);
  }, 1024 * 1024);

  let spawnArgv = [input.executable, ...input.args];
  if (input.sandbox?.on) {
    // Inside the sandbox a missing program is only bwrap's error: find it first, as spawn would.
    const found = findExecutable(input.executable, input.env.PATH, request.cwd);
    if (!found) {
      facts.spawnMissing = true;
      facts.spawnError = `could not start ${JSON.stringify(input.executable)}: not found on PATH`;
      return { facts, logs, emit };
    }
    spawnArgv = input.sandbox.wrap([found, ...input.args], request.cwd, input.env);
  }
  const group = spawnGroup(spawnArgv[0]!, spawnArgv.slice(1), { cwd: request.cwd, env: input.env, stdinText: input.stdinText });
  group.child.stdout?.on("data", (chunk: Buffer) => stdoutSplitter.push(chunk));
  stopGroup = () => group.kill(input.killGraceMs);
  pauseStdout = () => group.child.stdout?.pause();
  resumeStdout = () => group.child.stdout?.resume();
  group.child.stderr?.on("data", (chunk: Buffer) => stderrSplitter.push(chunk));

  const timer = setTimeout(() => {
    facts.timedOut = true;
    group.kill(input.killGraceMs);
  }, request.timeoutMs);
  const onAbort = (): void => {
    facts.aborted = true;
    group.kill(input.killGraceMs);
  };
  if (request.signal?.aborted) onAbort();
  else request.signal?.addEventListener("abort", onAbort, { once: true });

  await new Promise<void>((resolve) => {
    group.child.once("error", (error: NodeJS.ErrnoException) => {
      if (group.child.pid === undefined) {
        facts.spawnMissing = error.code === "ENOENT";
        facts.spawnError =
          error.code === "ENOENT"
            ? `could not start ${JSON.stringify(input.executable)}: not found on PATH`
            : `could not start ${JSON.stringify(input.executable)}: ${error.message}`;
        resolve();
      }
    });
    // The leader is gone: whatever it left in its group must not outlive the Stage.
    group.child.once("exit", () => reapGroup(group));
    group.child.once("close", (code, signal) => {
      facts.exitCode = code;
      facts.signal = signal;
      resolve();
    });
  });
  clearTimeout(timer);
  request.signal?.removeEventListener("abort", onAbort);
  stdoutSplitter.end();
  stderrSplitter.end();
  await stdoutQueue.idle();
  return { facts, logs, emit };
}

export interface SessionEnd {
  request: StageRequest;
  decision: { outcome: StageOutcome; detail?: string; rateLimitSign?: RateLimitSign };
  turns: number;
  /** The agent's final text, before redaction. */
  text: string;
  durationMs: number;
  /** The agent's own fields, after the common ones, in the transcript's outcome record. */
  record?: Record<string, unknown>;
  /** The runner's own fields, before the common ones, in the "agent stage ended" log line. */
  logged?: Record<string, unknown>;
  log?: Log;
}

/**
 * How every agent's session ends, whatever its lines meant: the transcript's `ticket_runner_outcome`
 * record, the logs closed, the result event, the log line. Returns the text and detail redacted.
 */
export async function endSession(session: SessionProcess, end: SessionEnd): Promise<{ text: string; detail?: string }> {
  const { facts, logs, emit } = session;
  const { outcome, rateLimitSign } = end.decision;
  const { turns, durationMs } = end;
  const text = logs.redact(end.text);
  const detail = end.decision.detail === undefined ? undefined : logs.redact(end.decision.detail);
  logs.transcriptRecord({
    type: "ticket_runner_outcome",
    outcome,
    detail: detail ?? null,
    rate_limit_sign: rateLimitSign ?? null,
    exit_code: facts.exitCode,
    signal: facts.signal,
    turns,
    duration_ms: durationMs,
    ...end.record,
  });
  await logs.close();
  emit({ kind: "result", outcome, turns, text, durationMs, ...(detail ? { detail } : {}) });
  end.log?.info("agent stage ended", { ...end.logged, stage: end.request.stage, ticket: end.request.ticket, outcome, turns, durationMs });
  return { text, ...(detail === undefined ? {} : { detail }) };
}
