/** The AgentRunner port: one Stage is one agent session in a worktree. */

export type StageName = "implement" | "verify" | "fix" | "conflict";

export type StageOutcome =
  | "success"
  | "rate-limited"
  | "timed-out"
  | "turn-capped"
  | "nonzero-exit"
  | "invalid-result";

/** Which of the three rate-limit signs (ADR 0050) made a failed session `rate-limited`, in the order they are read. */
export type RateLimitSign = "api-error-429" | "rejected-event" | "result-wording" | "stderr-wording";

/** What a transcript shows, already parsed and validated from the agent's stream. Every string is redacted. */
export type AgentEvent =
  /** Emitted by the runner before the agent starts, so a transcript has a header even if the agent never speaks. */
  | { kind: "start"; stage: StageName; ticket: number; command: string }
  | { kind: "init"; model: string; sessionId: string }
  | { kind: "text"; text: string }
  /** `name` is the tool (Edit, Bash, ...); `summary` its one-line argument, e.g. `src/discount.ts` or `npm test`. */
  | { kind: "tool"; name: string; summary: string }
  | { kind: "tool-result"; summary: string; isError: boolean }
  | { kind: "rate-limit"; status: string }
  /** Emitted once, last, after the process has exited: carries the Stage's final outcome. */
  | { kind: "result"; outcome: StageOutcome; turns: number; text: string; durationMs?: number; detail?: string }
  | { kind: "ignored"; reason: string };

export interface StageRequest {
  stage: StageName;
  ticket: number;
  prompt: string;
  cwd: string;
  /** `.ticket-runner/runs/<runId>/<n>/` : the adapter writes `<stage>.{command,stdout,stderr,transcript.jsonl}` there. */
  logDir: string;
  /** File stem inside logDir, e.g. `implement` or `retry/implement-2`. */
  logName: string;
  /** JSON schema of the structured answer, when one is required. */
  jsonSchema?: object;
  timeoutMs: number;
  maxTurns: number;
  /** Extra environment for the agent (e.g. TICKET_RUNNER_BASE). GitHub tokens in it are dropped unless the runner passes them. */
  env?: Record<string, string>;
  onEvent?: (event: AgentEvent) => void;
  /** Aborting kills the agent's whole process group; the result then has `aborted: true`. */
  signal?: AbortSignal;
}

export interface StageResult {
  outcome: StageOutcome;
  turns: number;
  durationMs: number;
  /** The final text of the session. */
  text: string;
  /** The structured answer, when `jsonSchema` was given and the agent answered. Still `unknown`: the core validates it. */
  structured?: unknown;
  /** Why the Stage did not succeed, for the hand-off evidence. Never contains a token. */
  detail?: string;
  /** Set when the outcome is `rate-limited`: the first sign that matched. */
  rateLimitSign?: RateLimitSign;
  /** The agent process's exit code, or null when a signal ended it (or it never started). */
  exitCode?: number | null;
  /** True when `request.signal` aborted the Stage (outcome is then `nonzero-exit`). */
  aborted?: boolean;
  /** Log files written, by kind (absolute paths). Hand-off keeps `command`, `transcript` and, when present, `prompt`. */
  files?: { command: string; stdout: string; stderr: string; transcript: string; prompt?: string };
}

export interface AgentRunner {
  readonly name: string;
  run(request: StageRequest): Promise<StageResult>;
}
