/**
 * Polls a condition until it holds or a deadline passes. Tests use this instead of fixed sleeps:
 * a sleep is either too short on a busy machine (flaky) or too long everywhere (slow).
 */
export interface WaitForOptions {
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number;
  /** Pause between polls. Default 25 ms. */
  intervalMs?: number;
  /** Said in the error when the deadline passes. */
  what?: string;
}

/**
 * Resolves with the first truthy value `probe` returns. A probe that throws counts as "not yet"
 * (e.g. a file not written yet); the last such error is quoted when the deadline passes.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `; last error: ${lastError.message}` : "";
      throw new Error(`waitFor: ${opts.what ?? "condition"} did not hold within ${timeoutMs} ms${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
