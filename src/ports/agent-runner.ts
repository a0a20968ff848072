/** The AgentRunner port: one Stage is one agent session in a worktree. */

export type StageName = "implement" | "verify" | "fix" | "conflict";

export type StageOutcome =
  | "success"
  | "rate-limited"
  | "timed-out"
  | "turn-capped"
  | "nonzero-exit"
  | "invalid-result"
  /** The agent could not work at all, whatever the ticket: see `unavailable` on the result. */
  | "unavailable";

/**
 * Why an agent could not work, whatever the ticket (ADR-0141). Agent-neutral: each adapter maps
 * its own signs (Claude Code's "Not logged in", a 529, ...) onto these.
 */
export type UnavailableReason =
  /** The agent has no credentials on this Host. */
  | "not-signed-in"
  /** The agent's executable is not there. */
  | "not-installed"
  /** The agent refused to start with these settings (e.g. bypassing permissions as root). */
  | "refused-to-start"
  /** The model provider is down: overloaded, server errors, or unreachable, after the agent's own retries. */
  | "provider-down";

/** Which rate-limit sign (ADR 0050, ADR 0141) made a failed session `rate-limited`, in the order they are read. */
export type RateLimitSign = "api-error-429" | "rejected-event" | "result-wording" | "stderr-wording" | "retrying-429";

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
  /**
   * Shell commands the Stage may run without asking, as argv prefixes (`["git", "commit"]` allows
   * `git commit -m …`). Edits inside the worktree are the permission mode's business. ADR-0140.
   */
  allowedCommands?: string[][];
  /** An agent session of this Stage to continue (from a result's `sessionId`), instead of a fresh one. */
  resumeSession?: string;
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
  /** Set when the outcome is `unavailable`. */
  unavailable?: UnavailableReason;
  /** When the limit that stopped the Stage resets (ISO 8601), if the agent said. */
  limitResetsAt?: string;
  /** Which limit, in the agent's words for a person (e.g. "5-hour limit", "weekly limit"), if it said. */
  limitName?: string;
  /** The agent's session, to continue it later with `resumeSession`. */
  sessionId?: string;
  /** `resumeSession` was given and the agent has no such session (nothing ran): start a fresh one. */
  resumeFailed?: boolean;
  /** Tool calls the agent was refused, one line each (`Bash: git commit -m …`). */
  permissionDenials?: string[];
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
