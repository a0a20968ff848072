/**
 * Filters and merge drivers (ADR 0223). A `filter.<x>.clean|smudge|process` or `merge.<x>.driver`
 * that the agent or a Check writes into any config git reads, with a committed `.gitattributes`
 * naming `<x>`, would run in the Run's own checkouts, status and rebases. `-c` cannot switch off a
 * name it does not know, so before a call in the clone the Run reads which names the config defines
 * (one `git config --get-regexp`, remembered while the files it came from are unchanged) and
 * overrides each: filters become empty (git then runs none, and `required=false` lets a file pass
 * as it is), a merge driver becomes `false` (the merge of that file is a conflict, which the Run
 * already handles, never a program's verdict).
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { runGitProcess } from "./git-process";
import type { GitProcessResult } from "./git-process";

export interface DriverNames {
  filters: string[];
  merges: string[];
}

/** `git config -z --get-regexp` output (`key\nvalue\0`…) to the names it defines, and whether it includes other files. */
export function driverNames(listing: string): DriverNames & { includes: boolean } {
  const filters = new Set<string>();
  const merges = new Set<string>();
  let includes = false;
  for (const entry of listing.split("\0")) {
    const key = entry.split("\n", 1)[0] ?? "";
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    if (first < 0) continue;
    const section = key.slice(0, first).toLowerCase();
    if (section === "include" || section === "includeif") includes = true;
    if (last <= first) continue;
    const name = key.slice(first + 1, last);
    if (section === "filter") filters.add(name);
    if (section === "merge") merges.add(name);
  }
  return { filters: [...filters], merges: [...merges], includes };
}

/**
 * The overrides for those names, as `GIT_CONFIG_COUNT` variables (a name may hold `=`, which `-c`
 * cannot carry), after the `already` entries a call's environment holds.
 */
export function overrideEnv(names: DriverNames, already = 0): Record<string, string> {
  const pairs: [string, string][] = [];
  for (const x of names.filters)
    pairs.push([`filter.${x}.clean`, ""], [`filter.${x}.smudge`, ""], [`filter.${x}.process`, ""], [`filter.${x}.required`, "false"]);
  for (const x of names.merges) pairs.push([`merge.${x}.driver`, "false"], [`merge.${x}.recursive`, "binary"]);
  if (pairs.length === 0) return {};
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(already + pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${already + i}`] = key;
    env[`GIT_CONFIG_VALUE_${already + i}`] = value;
  });
  return env;
}

/**
 * The config files git reads for a call in `cwd` (system, global, the repository's), keyed by the
 * repository's common git dir, so the clone and its worktrees share one reading; null when they
 * cannot be told without git, or when the worktree has a config of its own.
 */
function configFiles(cwd: string, env: NodeJS.ProcessEnv): { common: string; files: string[] } | null {
  let gitDir: string;
  try {
    const dotGit = join(cwd, ".git");
    const st = statSync(dotGit);
    gitDir = st.isDirectory() ? dotGit : resolve(cwd, /^gitdir: (.*)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim() ?? "");
  } catch {
    return null;
  }
  let common = gitDir;
  try {
    const rel = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    common = isAbsolute(rel) ? rel : resolve(gitDir, rel);
  } catch {
    // A main working tree: its git dir is the common one.
  }
  try {
    statSync(join(gitDir, "config.worktree"));
    return null;
  } catch {
    // No worktree config: the common one is all there is.
  }
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME ?? join(home, ".config");
  return { common, files: ["/etc/gitconfig", env.GIT_CONFIG_GLOBAL ?? join(home, ".gitconfig"), join(xdg, "git", "config"), join(common, "config")] };
}

function signature(files: string[]): string {
  return files
    .map((f) => {
      try {
        const st = statSync(f);
        return `${f}:${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return `${f}:-`;
      }
    })
    .join("|");
}

const remembered = new Map<string, { signature: string; env: Record<string, string> }>();

/** The names that git call's output defines: remembered for `key` while the files keep `sig`, except when the config includes others. */
function rememberNames(key: string, sig: string | null, names: DriverNames & { includes: boolean }, already: number): Record<string, string> {
  const out = overrideEnv(names, already);
  if (sig && !names.includes) remembered.set(key, { signature: sig, env: out });
  else remembered.delete(key);
  return out;
}

/** Where a call in `cwd` keeps its names, and the config files' signature now (before git reads them). */
function memoryFor(cwd: string, env: NodeJS.ProcessEnv): { key: string; sig: string | null; already: number } {
  const found = configFiles(cwd, env);
  const already = Number(env.GIT_CONFIG_COUNT ?? "0") || 0;
  return { key: `${found?.common ?? cwd}\0${already}`, sig: found ? signature(found.files) : null, already };
}

/** The key a `--get-regexp` of driverOverrides asks for. */
const DRIVER_KEY = /^(filter|merge|include|includeif)\./;

/**
 * The override variables for a call in `cwd`. Remembered per folder while the config files are
 * unchanged; read every time when the config includes other files (their changes would not show).
 */
export async function driverOverrides(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const { key, sig, already } = memoryFor(cwd, env);
  const known = remembered.get(key);
  if (sig && known?.signature === sig) return known.env;
  const res = await runGitProcess([...args, "config", "-z", "--get-regexp", DRIVER_KEY.source], { cwd, env, idleMs: 60_000 });
  // 1: no such key. Anything else: git could not read the config, and the call itself will say why.
  const names = res.code === 0 ? driverNames(res.stdout.toString("utf8")) : { filters: [], merges: [], includes: false };
  return rememberNames(key, sig, names, already);
}

/**
 * `git config -z --show-origin --list` in `cwd`, run with the same `-c` entries (`args`) and
 * environment as a call there (ADR 0509): the whole config, which the sandbox's preflight reads
 * for the files it holds read-only (config-files.ts), also names every filter and merge driver, so
 * the calls after it need no `--get-regexp` of their own while the files are unchanged. `git
 * config` runs no filter or driver, so it is started without the overrides.
 */
export async function configListingRemembered(cwd: string, args: string[], env: NodeJS.ProcessEnv, idleMs: number): Promise<GitProcessResult> {
  const { key, sig, already } = memoryFor(cwd, env);
  const res = await runGitProcess([...args, "config", "-z", "--show-origin", "--list"], { cwd, env, idleMs });
  if (res.code !== 0) return res;
  rememberNames(key, sig, driverNames(driverEntriesOf(res.stdout.toString("utf8"))), already);
  return res;
}

/**
 * Of `git config -z --show-origin --list` output ("<origin>\0<key>\n<value>\0", or
 * "<origin>\0<key>\0" for a key without a value), the entries driverOverrides' `--get-regexp`
 * would print, in its own shape ("<key>\n<value>\0").
 */
export function driverEntriesOf(showOriginListing: string): string {
  const parts = showOriginListing.split("\0");
  let out = "";
  for (let i = 1; i < parts.length; i += 2) if (DRIVER_KEY.test(parts[i]!)) out += `${parts[i]}\0`;
  return out;
}
