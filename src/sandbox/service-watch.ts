/**
 * Listeners told of every upload-pack and receive-pack the sandbox starts for a smart HTTP request
 * (routes/git-http.ts): started through the spawner's streamed calls, they are not seen by
 * `watchGitProcesses`, and the tests that hold a request to "no process" (ADR 0479) watch here.
 */
const watchers = new Set<(args: readonly string[]) => void>();

/** Calls `listener` with the arguments of every service started from now on; the returned function stops it. */
export function watchServices(listener: (args: readonly string[]) => void): () => void {
  watchers.add(listener);
  return () => watchers.delete(listener);
}

export function serviceStarted(args: readonly string[]): void {
  for (const w of watchers) w(args);
}
