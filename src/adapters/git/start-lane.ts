/**
 * The git half of `ticket-runner start`: fetch the base with a forced refspec, then cut
 * `.worktrees/ticket-<n>` on `agent/<n>-<slug>` (the Workspace adapter), or continue on the branch
 * an earlier attempt left. Two promises are kept here, at the call site:
 * - `--offline` makes no network call: no fetch, and the lane is cut from the last fetched base
 *   without the remote-branch check the online path does.
 * - Nothing is deleted unless asked: `--fresh-branch` deletes an old branch with `git branch -d`
 *   only (refused on unmerged work); `-D` needs `--delete-branch-force`, and says what it drops.
 */
import { execFile } from "node:child_process";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { GitWorkspace } from "./git-workspace";
import { isRefusal, Refusal } from "../../core/errors";
import type { Lane } from "../../ports/workspace";

const run = promisify(execFile);

async function git(cwd: string, args: string[]): Promise<{ ok: boolean; out: string; err: string }> {
  try {
    const r = await run("git", args, { cwd, env: { ...process.env, LC_ALL: "C" } });
    return { ok: true, out: r.stdout.trim(), err: r.stderr.trim() };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: (e.stdout ?? "").trim(), err: (e.stderr ?? String(error)).trim() };
  }
}

export interface LaneRequest {
  ws: GitWorkspace;
  ticket: number;
  title: string;
  base: string;
  offline: boolean;
  /** The caller fetched the base already (start does, before it claims), so it is not fetched twice. */
  fetched?: boolean;
  freshBranch: boolean;
  forceDelete: boolean;
  say(line: string): void;
}

/** `git branch -d` (or -D when asked) of an old branch, after removing its clean worktree. */
async function dropOldLane(r: LaneRequest, branch: string): Promise<void> {
  const root = r.ws.root;
  const path = r.ws.lanePath(r.ticket);
  const list = await git(root, ["worktree", "list", "--porcelain"]);
  if (list.out.split("\n").some((l) => l === `worktree ${path}`)) {
    const rm = await git(root, ["worktree", "remove", path]);
    if (!rm.ok) {
      throw new Refusal(
        "dirty-checkout",
        `The old worktree ${path} has changes git would lose (${rm.err}). Nothing was deleted. Commit or move them (see \`git -C ${path} status\`), then run \`ticket-runner start ${r.ticket}\` again.`,
        { path, next: `git -C ${path} status` },
      );
    }
    r.say(`Removed the old worktree ${path} (it was clean).`);
  }
  if (!(await git(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])).ok) return;
  const ahead = await git(root, ["rev-list", "--count", branch, "--not", "--remotes"]);
  const unpushed = Number(ahead.out) || 0;
  if (r.forceDelete) {
    r.say(`Deleting branch ${branch} with git branch -D, as asked (--delete-branch-force): ${unpushed} commit(s) on it are on no remote.`);
    const d = await git(root, ["branch", "-D", branch]);
    if (!d.ok)
      throw new Refusal("branch-in-way", `git branch -D ${branch} failed: ${d.err}. Nothing else was changed; look at it with \`git -C ${root} branch -vv\`.`, {
        next: `git -C ${root} branch -vv`,
      });
    return;
  }
  const d = await git(root, ["branch", "-d", branch]);
  if (!d.ok) {
    throw new Refusal(
      "branch-in-way",
      `git branch -d refused to delete ${branch}: it holds work not merged (${unpushed} commit(s) on no remote). Nothing was deleted. ` +
        `Continue on it (start without --fresh-branch), or delete it anyway: \`ticket-runner start ${r.ticket} --take-over --fresh-branch --delete-branch-force\`.`,
      { next: `ticket-runner start ${r.ticket} --take-over --fresh-branch --delete-branch-force` },
    );
  }
  r.say(`Deleted the old branch ${branch} (git branch -d: it was merged).`);
}

/** Offline: a worktree from the last fetched base, no remote involved. */
async function cutOffline(r: LaneRequest, branch: string): Promise<Lane> {
  const root = r.ws.root;
  const path = r.ws.lanePath(r.ticket);
  if ((await git(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])).ok) {
    const add = await git(root, ["worktree", "add", "--quiet", path, branch]);
    if (!add.ok)
      throw new Refusal(
        "branch-in-way",
        `Could not add a worktree for the existing ${branch} at ${path}: ${add.err}. See what git holds there: \`git -C ${root} worktree list\`.`,
        { path, next: `git -C ${root} worktree list` },
      );
    r.say(`Continuing on the existing local branch ${branch} (offline: the remote was not consulted).`);
    return { ticket: r.ticket, branch, path };
  }
  const tracked = `refs/remotes/origin/${r.base}`;
  const start = (await git(root, ["rev-parse", "--verify", "--quiet", tracked])).ok ? tracked : r.base;
  const exclude = join(root, ".git", "info", "exclude");
  const current = await readFile(exclude, "utf8").catch(() => "");
  if (!current.split("\n").includes(".worktrees/")) {
    await mkdir(join(root, ".git", "info"), { recursive: true }).catch(() => undefined);
    await appendFile(exclude, `${current && !current.endsWith("\n") ? "\n" : ""}.worktrees/\n`).catch(() => undefined);
  }
  const add = await git(root, ["worktree", "add", "--quiet", "--no-track", "-b", branch, path, start]);
  if (!add.ok)
    throw new Refusal(
      "branch-in-way",
      `Could not cut ${path} on ${branch} from ${start}: ${add.err}. See what git holds there: \`git -C ${root} worktree list\`.`,
      { path, next: `git -C ${root} worktree list` },
    );
  r.say(`Offline: cut from ${start} as last fetched (no fetch was made).`);
  return { ticket: r.ticket, branch, path };
}

export async function prepareLane(r: LaneRequest): Promise<Lane> {
  const branch = r.ws.branchFor(r.ticket, r.title);
  if (r.freshBranch) await dropOldLane(r, branch);
  if (r.offline) return cutOffline(r, branch);
  // The forced refspec `+<base>:refs/remotes/origin/<base>` lives in the adapter's fetchBase.
  if (!r.fetched) await r.ws.fetchBase(r.base);
  const existed = (await git(r.ws.root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`])).ok;
  try {
    const lane = await r.ws.cutLane(r.ticket, branch, r.base);
    // cutLane starts on an old branch only when it held nothing beyond the base (ADR 0121).
    if (existed) r.say(`Continuing on the existing branch ${branch} (it held nothing beyond the base; moved up to the fresh base).`);
    return lane;
  } catch (error) {
    if (!isRefusal(error) || error.reason !== "branch-in-way") throw error;
    // An earlier attempt's branch (here or on the remote): continue on it, never over it.
    const resumed = await r.ws.resumeLane(r.ticket, branch, r.base);
    if (!resumed.lane) throw error;
    r.say(`Continuing on the existing branch ${branch} (${resumed.outcome}${resumed.detail ? `: ${resumed.detail}` : ""}).`);
    return resumed.lane;
  }
}
