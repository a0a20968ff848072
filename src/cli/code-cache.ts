/**
 * The CLI's V8 code cache (ADR 0481). Node 20 compiles dist/cli-bundle.js (2.3 MB) afresh in every
 * process, and a Run's start then compiles, function by function, all it runs before its first Lane:
 * ~0.1 of a start's ~0.5–0.8 CPU-s. V8 can serialize that compiled code (`vm.Script`'s
 * `createCachedData`) and take it back in the next process (`cachedData`). V8 checks its own
 * version, its flags and the source's length, not the source itself, so the cache's file is named by
 * the bundle's sha256: a bundle changed by even one byte never meets a cache made from another.
 *
 * The cache is code: whoever can write it runs code in the next Run, which holds the token. It lives
 * in ~/.cache/ticket-runner, which the agents' sandbox mounts read-only and makes when missing
 * (src/adapters/isolation/mounts.ts), though the rest of ~/.cache is the agents' to write. So the
 * folders on its path must be this user's real folders (no link to a place an agent could write,
 * which an agent of an older Run could have planted while the folder was missing), writable by no
 * one else, and the file a regular file of this user's with no other name. Anything else, and any
 * failure (no home, a read-only disk, a file V8 rejects), leaves the bundle compiled as before,
 * without a cache.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { Module, createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script, constants } from "node:vm";

/** How many bundles' caches one folder keeps (two installs used in turn must not evict each other). */
const KEEP = 4;
const SUFFIX = ".v8cache";

/** The folder, the one the agents' sandbox mounts read-only; null without an absolute HOME. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  const home = env.HOME;
  return home && home.startsWith("/") ? join(home, ".cache", "ticket-runner", "code-cache") : null;
}

/** The cache file for this bundle's bytes, this Node and this machine's architecture. */
export function codeCacheFile(dir: string, bundle: Buffer): string {
  const digest = createHash("sha256").update(bundle).digest("hex").slice(0, 32);
  return join(dir, `cli-${digest}-${process.version}-${process.arch}${SUFFIX}`);
}

/** This user's, writable by no one else (group and others' write bits clear). */
function ownOnly(stats: Stats): boolean {
  return stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
}

/**
 * Makes the folder (owner only) now, before any agent's sandbox could; false when it cannot be, or
 * when it or ~/.cache/ticket-runner is a link, another user's, or writable by others: no cache then.
 */
export function ensureCodeCacheDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return [join(dir, ".."), dir].every((d) => {
      const stats = lstatSync(d);
      return stats.isDirectory() && ownOnly(stats);
    });
  } catch {
    return false;
  }
}

/**
 * The cache's bytes, or undefined when there is none, it cannot be read, or it is not a regular
 * file of this user's, writable by no one else, with one name (not a link, not a hard link to a
 * file elsewhere).
 */
export function readCodeCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    return stats.isFile() && stats.nlink === 1 && ownOnly(stats) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes the cache whole or not at all (a temp file renamed over it: Runs started together may
 * write at once, and a reader never sees half a file), then keeps the KEEP newest caches.
 */
export function writeCodeCache(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // A new file ("wx"): never through a link or into a file left at that name.
    rmSync(temp, { force: true });
    writeFileSync(temp, data, { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
    return;
  }
  pruneCodeCaches(join(file, ".."));
}

function pruneCodeCaches(dir: string): void {
  try {
    const caches = readdirSync(dir)
      .filter((name) => name.endsWith(SUFFIX))
      .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of caches.slice(KEEP)) rmSync(old.path, { force: true });
  } catch {
    // another process pruned first: nothing to do
  }
}

/** Where the loader (src/cli/loader.ts) leaves its writer for the bundle, which is a file of its own. */
const WRITER = Symbol.for("ticket-runner.cli.write-code-cache");

/** The loader's side: what to call when the bundle says its compiled code is worth keeping. */
export function offerCodeCacheWriter(write: () => void): void {
  (globalThis as Record<symbol, unknown>)[WRITER] = write;
}

/**
 * The bundle's side: `ticket-runner run` calls this at its first Lane, when all a start compiles is
 * compiled (later, V8 may have flushed the start's code as unused). A no-op when the loader found a
 * cache, or when the bundle was run without the loader (`node dist/cli-bundle.js`, the Actions copy).
 */
export function codeCacheWorthKeeping(): void {
  const write = (globalThis as Record<symbol, unknown>)[WRITER];
  delete (globalThis as Record<symbol, unknown>)[WRITER];
  if (typeof write === "function") setImmediate(write as () => void);
}

/**
 * Compiles and runs a CommonJS bundle as Node's loader would, with the code cache where there is
 * one; where there is none (or V8 rejects it), offers the bundle a writer for one. `main` is the
 * process's main module, so the bundle's `require.main === module` holds as when Node runs it.
 */
export function runWithCodeCache(bundlePath: string, env: NodeJS.ProcessEnv, main: NodeModule): void {
  const bundle = readFileSync(bundlePath);
  const dir = codeCacheDir(env);
  const cacheFile = dir && ensureCodeCacheDir(dir) ? codeCacheFile(dir, bundle) : null;
  const cachedData = cacheFile ? readCodeCache(cacheFile) : undefined;
  // The shebang line emptied, not removed: the bundle's line numbers stay those of its file.
  const script = new Script(Module.wrap(bundle.toString("utf8").replace(/^#!.*/, "")), {
    filename: bundlePath,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) offerCodeCacheWriter(() => writeCodeCache(cacheFile, script.createCachedData()));
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: NodeModule, filename: string, dirname: string) => void;
  wrapper.call(main.exports, main.exports, createRequire(bundlePath), main, bundlePath, dirname(bundlePath));
}
