/**
 * The config files git reads in the clone, for the sandbox to hold read-only (ADR 0290), and the
 * pin that keeps the Run's git from reading a global config file that does not exist yet (code in
 * the sandbox may write its home folder, so it could make one between two of the Run's calls).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { RepoContext } from "./repo-context";

/** The global config files git would read with `env`, whether or not they exist. */
function globalCandidates(env: NodeJS.ProcessEnv): string[] {
  if (env.GIT_CONFIG_GLOBAL) return [env.GIT_CONFIG_GLOBAL];
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  return [join(home, ".gitconfig"), join(xdg, "git", "config")];
}

/**
 * `GIT_CONFIG_GLOBAL` for the Run's git: the one global file that exists now, or /dev/null when none
 * does, so a file made later is never read. Nothing when git reads two (both held read-only then).
 */
export function pinnedGlobalConfig(env: NodeJS.ProcessEnv): Record<string, string> {
  const existing = globalCandidates(env).filter((f) => existsSync(f));
  if (env.GIT_CONFIG_GLOBAL) return existing.length === 1 ? {} : { GIT_CONFIG_GLOBAL: "/dev/null" };
  if (existing.length === 2) return {};
  return { GIT_CONFIG_GLOBAL: existing[0] ?? "/dev/null" };
}

/** Every file git read its config from in the clone (origins of `git config --show-origin --list`), and the global candidates. */
export async function configFilesGitReads(ctx: RepoContext, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await ctx.git.configListing(ctx.root);
  const files = new Set<string>(globalCandidates(env));
  if (out.code === 0) {
    // -z: "<origin>\0<key>\n<value>\0" per entry; an origin is "file:<path>", "command line:", …
    const parts = out.stdout.toString("utf8").split("\0");
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const origin = parts[i]!;
      if (!origin.startsWith("file:")) continue;
      const path = origin.slice("file:".length);
      files.add(isAbsolute(path) ? path : resolve(ctx.root, path));
    }
  }
  return [...files];
}
