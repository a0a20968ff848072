/**
 * Checks on the Target's main checkout before a Run takes anything, each refusal with the exact fix.
 * None of them leaves anything behind (they come before the Run lock).
 */
import { readdir, realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Refusal } from "../../core/errors";
import type { RepoContext } from "./repo-context";

/** Resolves with the clone's common git directory (absolute), read by the same git call as its top. */
export async function preflight(ctx: RepoContext, base?: string): Promise<{ commonDir: string }> {
  // One process for both (the sandbox of ADR 0290 needs the common directory; bench:run budgets git processes).
  const top = await ctx.git.raw(["rev-parse", "--show-toplevel", "--git-common-dir"], { cwd: ctx.root });
  if (top.code !== 0) {
    throw new Refusal("not-a-target", `${ctx.root} is not a git repository, so it cannot be a Target.`, {
      path: ctx.root,
      next: `git clone <the repository's URL> ${ctx.root}`,
    });
  }
  const [topPath = "", gitCommonDir = ""] = top.stdout.toString("utf8").trim().split("\n");
  // Relative to the cwd when git prints it so (".git").
  const commonDir = resolve(ctx.root, gitCommonDir);
  const [realTop, realRoot] = await Promise.all([realpath(topPath), realpath(ctx.root)]);
  if (realTop !== realRoot) {
    throw new Refusal("not-a-target", `${ctx.root} is inside the repository ${topPath}, not its top; a Target is the whole clone.`, {
      path: ctx.root,
      next: `cd ${topPath}`,
    });
  }

  const url = await ctx.git.raw(["remote", "get-url", ctx.remote], { cwd: ctx.root });
  if (url.code !== 0) {
    throw new Refusal("not-a-target", `${ctx.root} has no remote \`${ctx.remote}\`; the State, the lock and every Lane's work live there.`, {
      path: ctx.root,
      next: `git -C ${ctx.root} remote add ${ctx.remote} https://github.com/<owner>/<repo>.git`,
    });
  }

  const head = await ctx.git.raw(["symbolic-ref", "--quiet", "HEAD"], { cwd: ctx.root });
  if (head.code !== 0) {
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
