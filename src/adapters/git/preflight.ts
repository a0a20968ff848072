/**
 * Checks on the Target's main checkout before a Run takes anything, each refusal with the exact fix.
 * None of them leaves anything behind (they come before the Run lock).
 */
import { readFile, readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { Refusal } from "../../core/errors";
import type { RepoContext } from "./repo-context";
import { CLONE_STORE_ARGS, cloneStoreOf, knowCloneStore } from "./clone-store";
import type { CloneStore } from "./clone-store";
import { branchOfHeadFile } from "./lane-head";
import { originFoundAt, takeTopFound } from "./checkout-found";

/**
 * What the preflight asks `git rev-parse` in one process: the top, the absolute git directory and
 * the clone's store (ADR 0481). `ticket-runner run` asks the same a moment earlier (ADR 0490).
 */
export const PREFLIGHT_REV_PARSE = ["--show-toplevel", "--absolute-git-dir", ...CLONE_STORE_ARGS] as const;

/**
 * True when the checkout's HEAD file names a branch (`ref: refs/heads/<name>`), as
 * `git symbolic-ref HEAD` would say, read without a process (ADR 0481). Anything else answers
 * false and git is asked as before: a detached HEAD (a commit id), a reftable store (whose HEAD
 * file is the stub `ref: refs/heads/.invalid`), an unreadable file.
 */
async function onBranchFromFiles(gitDir: string, commonDir: string): Promise<boolean> {
  if (!gitDir.startsWith("/")) return false;
  const ref = branchOfHeadFile(await readFile(join(gitDir, "HEAD"), "utf8").catch(() => ""));
  if (!ref || ref === "refs/heads/.invalid") return false;
  return !(await stat(join(commonDir, "reftable")).then(
    () => true,
    () => false,
  ));
}

async function askTop(ctx: RepoContext): Promise<{ top: string; gitDir: string; store: CloneStore }> {
  const answer = await ctx.git.raw(["rev-parse", ...PREFLIGHT_REV_PARSE], { cwd: ctx.root });
  if (answer.code !== 0) {
    throw new Refusal("not-a-target", `${ctx.root} is not a git repository, so it cannot be a Target.`, {
      path: ctx.root,
      next: `git clone <the repository's URL> ${ctx.root}`,
    });
  }
  const [top = "", gitDir = "", ...storeLines] = answer.stdout.toString("utf8").trim().split("\n");
  return { top, gitDir, store: cloneStoreOf(ctx.root, storeLines) };
}

/** Resolves with the clone's common git directory (absolute), read by the same git call as its top. */
export async function preflight(ctx: RepoContext, base?: string): Promise<{ commonDir: string }> {
  // One process for the top, the git directory and the clone's store (the sandbox of ADR 0290 needs the
  // common directory, the Run's fetches the store; bench:run budgets git processes, ADR 0481), or
  // none when `ticket-runner run` asked git exactly this a moment ago in this process (ADR 0490).
  const { top: topPath, gitDir, store } = takeTopFound(ctx.root) ?? (await askTop(ctx));
  knowCloneStore(ctx.root, store);
  const commonDir = store.commonDir;
  const [realTop, realRoot] = await Promise.all([realpath(topPath), realpath(ctx.root)]);
  if (realTop !== realRoot) {
    throw new Refusal("not-a-target", `${ctx.root} is inside the repository ${topPath}, not its top; a Target is the whole clone.`, {
      path: ctx.root,
      next: `cd ${topPath}`,
    });
  }

  // `ticket-runner run` read the origin's URL for its Target a moment ago, in this process: no second git process to ask again.
  const found = ctx.remote === "origin" && originFoundAt(ctx.root);
  if (!found && (await ctx.git.raw(["remote", "get-url", ctx.remote], { cwd: ctx.root })).code !== 0) {
    throw new Refusal("not-a-target", `${ctx.root} has no remote \`${ctx.remote}\`; the State, the lock and every Lane's work live there.`, {
      path: ctx.root,
      next: `git -C ${ctx.root} remote add ${ctx.remote} https://github.com/<owner>/<repo>.git`,
    });
  }

  if (!(await onBranchFromFiles(gitDir, commonDir)) && (await ctx.git.raw(["symbolic-ref", "--quiet", "HEAD"], { cwd: ctx.root })).code !== 0) {
    const to = base ?? "<your base branch>";
    throw new Refusal("not-a-target", `The checkout at ${ctx.root} is on a detached HEAD (a rebase or a bisect in progress, or a checked-out commit).`, {
      path: ctx.root,
      next: `git -C ${ctx.root} rebase --abort 2>/dev/null; git -C ${ctx.root} switch ${to}`,
    });
  }

  // Untracked files are a person's own business; changes to tracked files mean work in progress here.
  const status = await ctx.git.text(["status", "--porcelain=v1", "--untracked-files=no"], { cwd: ctx.root });
  if (status) {
    const files = status
      .split("\n")
      .slice(0, 5)
      .map((l) => l.slice(3));
    const more = status.split("\n").length > 5 ? ", ..." : "";
    throw new Refusal("dirty-checkout", `The checkout at ${ctx.root} has uncommitted changes (${files.join(", ")}${more}).`, {
      path: ctx.root,
      next: `git -C ${ctx.root} stash push -m "before ticket-runner"   (or commit them)`,
    });
  }

  const legacy = join(ctx.root, ".ticket-runner", "state");
  const old = (await readdir(legacy).catch(() => [] as string[])).filter((f) => /^ticket-\d+\.json$/.test(f));
  if (old.length > 0) {
    const tickets = old.map((f) => `#${f.replace(/\D/g, "")}`).join(" ");
    throw new Refusal("bad-input", `State files from an older version are in ${legacy} (${tickets}). Nothing migrates them.`, {
      path: legacy,
      next: `Finish ${tickets} with the old version or hand them to a person, then: rm -r ${legacy}`,
    });
  }
  return { commonDir };
}
