/** The AgentRunner port: one Stage is one agent session in a worktree. */

export type StageName = "implement" | "verify" | "fix" | "conflict";

export type StageOutcome =
  | "success"
  | "rate-limited"
  | "timed-out"
  | "turn-capped"
  | "nonzero-exit"
  | "invalid-result";

/** What a transcript shows, already parsed and validated from the agent's stream. */
export type AgentEvent =
  | { kind: "init"; model: string; sessionId: string }
  | { kind: "text"; text: string }
  | { kind: "tool"; name: string; summary: string }
  | { kind: "tool-result"; summary: string; isError: boolean }
  | { kind: "rate-limit"; status: string }
  | { kind: "result"; outcome: StageOutcome; turns: number; text: string }
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
  env?: Record<string, string>;
  onEvent?: (event: AgentEvent) => void;
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
}

export interface AgentRunner {
  readonly name: string;
  run(request: StageRequest): Promise<StageResult>;
}
