/** Time, behind a port so the core's unit tests can move it by hand. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
