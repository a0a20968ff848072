/**
 * The CLI's V8 tuning. Node's `fetch` (undici, which Octokit and the smart-HTTP client use) parses
 * HTTP with llhttp compiled to WebAssembly. V8 compiles that module with Liftoff and then again, on
 * a background thread, with TurboFan: ~0.25 CPU-s of a `ticket-runner` process on the slower
 * machine, spent at its first request and never paid back by a Run's few hundred responses
 * (ADR 0475).
 *
 * The same holds for the CLI's JavaScript (ADR 0493): a Run runs many functions a few hundred times
 * each and waits on git, GitHub and its agents in between, so TurboFan's compiles on V8's
 * background threads were ~13% of a Run's CPU after its first Lane (a fifth with the main thread's
 * share) and bought back less than they cost. The JavaScript stays on Sparkplug, V8's baseline
 * compiler; the hot work (JSON, zlib, sha1, regular expressions) is native code either way.
 */
import { setFlagsFromString } from "node:v8";

/**
 * Keeps WebAssembly on Liftoff and JavaScript on Sparkplug (`--max-opt=1`: no Maglev, no TurboFan).
 * Called once, by the CLI's own entry, before the bundle is compiled and before any request: V8
 * reads both flags when it picks a function's or a module's compiler, and refuses a code cache made
 * under other flags (ADR 0481). Never in the extension host, whose V8 is VS Code's to tune.
 */
export function cliV8Tiers(): void {
  setFlagsFromString("--liftoff-only");
  setFlagsFromString("--max-opt=1");
}
