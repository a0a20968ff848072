/**
 * The CLI's V8 tuning (ADR 0475). Node's `fetch` (undici, which Octokit and the smart-HTTP client
 * use) parses HTTP with llhttp compiled to WebAssembly. V8 compiles that module with Liftoff and
 * then again, on a background thread, with TurboFan: ~0.25 CPU-s of a `ticket-runner` process
 * on the slower machine, spent at its first request and never paid back by a Run's few hundred
 * responses. Liftoff alone parses them for less than that second compile costs.
 */
import { setFlagsFromString } from "node:v8";

/**
 * Keeps WebAssembly on Liftoff. Called once, by the CLI's own entry, before any request: the flag
 * is read when a module is compiled. Never in the extension host, whose V8 is VS Code's to tune.
 */
export function liftoffOnly(): void {
  setFlagsFromString("--liftoff-only");
}
