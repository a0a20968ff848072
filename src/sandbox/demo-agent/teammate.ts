/**
 * The "conflict" behaviour: while implement works, a "teammate" pushes a commit to the base branch
 * that rewrites the same files, so the later rebase onto the fresh base stops deterministically.
 *
 * Every file of `teammateFiles` (default: each of `files`, rewritten to one line) is replaced
 * whole. A whole-file rewrite overlaps any change the ticket makes to that file, and a file the
 * ticket adds becomes an add/add conflict, so the rebase always stops.
 *
 * Built from git objects and a scratch index (hash-object, update-index, write-tree, commit-tree),
 * so the worktree, its index and its branch are never touched. Pushed to `origin` with
 * TICKET_RUNNER_DEMO_TEAMMATE_TOKEN (or a GitHub token the runner was configured to pass) as
 * basic auth, kept off the command line.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEAMMATE_IDENTITY, gitIn, gitText, tokenEnv } from "./git";

async function baseBranch(cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.TICKET_RUNNER_BASE) return env.TICKET_RUNNER_BASE;
  const head = await gitIn(cwd, ["symbolic-ref", "-q", "refs/remotes/origin/HEAD"], { allowFail: true });
  const ref = head.stdout.trim();
  if (head.code === 0 && ref.startsWith("refs/remotes/origin/")) return ref.slice("refs/remotes/origin/".length);
  return "main";
}

function pushToken(env: NodeJS.ProcessEnv): string | null {
  return env.TICKET_RUNNER_DEMO_TEAMMATE_TOKEN || env.TICKET_RUNNER_TOKEN || env.GITHUB_TOKEN || env.GH_TOKEN || null;
}

export function defaultTeammateFiles(files: Record<string, string>, ticket: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of Object.keys(files)) out[path] = `Rewritten by a teammate while the demo agent worked on #${ticket}.\n`;
  return out;
}

/** Pushes the teammate's commit onto origin/<base>; returns its sha. Retries if the base moved meanwhile. */
export async function pushTeammateCommit(
  cwd: string,
  env: NodeJS.ProcessEnv,
  files: Record<string, string>,
  ticket: string,
): Promise<{ sha: string; base: string }> {
  const base = await baseBranch(cwd, env);
  const token = pushToken(env);
  const auth = token ? tokenEnv(token, env) : {};
  const scratch = await mkdtemp(join(tmpdir(), "tr-demo-teammate-"));
  try {
    let lastError = "";
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await gitIn(cwd, ["fetch", "-q", "origin", `refs/heads/${base}`], { env: auth });
      const tip = await gitText(cwd, ["rev-parse", "FETCH_HEAD"]);
      const indexEnv = { ...auth, GIT_INDEX_FILE: join(scratch, `index-${attempt}`) };
      await gitIn(cwd, ["read-tree", tip], { env: indexEnv });
      for (const [path, content] of Object.entries(files)) {
        const blob = await gitText(cwd, ["hash-object", "-w", "--stdin"], { input: content });
        await gitIn(cwd, ["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], { env: indexEnv });
      }
      const tree = await gitText(cwd, ["write-tree"], { env: indexEnv });
      const sha = await gitText(
        cwd,
        ["commit-tree", tree, "-p", tip, "-m", `Teammate: edit ${Object.keys(files).join(", ")} while #${ticket} is in progress`],
        {
          identity: TEAMMATE_IDENTITY,
        },
      );
      const pushed = await gitIn(cwd, ["push", "-q", "origin", `${sha}:refs/heads/${base}`], { env: auth, allowFail: true });
      if (pushed.code === 0) return { sha, base };
      lastError = pushed.stderr.trim();
    }
    throw new Error(
      `could not push the teammate's commit to ${base}: ${lastError}. The demo agent pushes it as the worktree's origin allows; for an authenticated remote give it TICKET_RUNNER_DEMO_TEAMMATE_TOKEN`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
