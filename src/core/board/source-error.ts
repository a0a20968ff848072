/**
 * Why a board fetch failed, in words a person can act on. Adapters throw BoardSourceError;
 * anything else that escapes is described as an internal error rather than swallowed.
 */
export type BoardErrorReason =
  | "unauthorized" // token missing, expired or revoked
  | "forbidden" // no access to the repository
  | "not-found" // repository (or API) not there
  | "rate-limited"
  | "network" // could not reach the API
  | "invalid-response" // the API answered something we cannot read
  | "server" // 5xx
  | "bad-config" // the Target's ticket-runner.json was refused: the board shows why rather than guess labels
  | "internal";

export class BoardSourceError extends Error {
  override readonly name = "BoardSourceError";
  constructor(
    readonly reason: BoardErrorReason,
    message: string,
    readonly details: { status?: number; retryAt?: Date; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
}

export interface BoardError {
  reason: BoardErrorReason;
  message: string;
  at: Date;
  /** When the server said to come back (rate limit reset, Retry-After). */
  retryAt: Date | null;
}

export function describeBoardError(e: unknown, at: Date): BoardError {
  if (e instanceof BoardSourceError) return { reason: e.reason, message: e.message, at, retryAt: e.details.retryAt ?? null };
  const message = e instanceof Error ? e.message : String(e);
  return { reason: "internal", message: `Unexpected error while reading the board: ${message}`, at, retryAt: null };
}
