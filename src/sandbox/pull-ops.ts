/**
 * Pull request mechanics on real git: mergeability (`git merge-tree --write-tree`), the three
 * merge methods, the compare-and-swap ref update, and what a merge into the default branch does
 * to the issues it names and to its head branch.
 */
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { App } from "./app";
import { mergeViolation } from "./rulesets";
import { makeCommit } from "./commit-object";
import { childOfBase } from "./head-on-base";
import { git, gitOk, mergeTree } from "./git";
import { HttpError } from "./http";
import { addEvent, setState } from "./issue-ops";
import { isoNow } from "./model";
import type { IssueRec, PullRec, RepoRec } from "./model";

export type MergeMethod = "merge" | "squash" | "rebase";

const locks = new Map<number, Promise<unknown>>();

/** Runs `fn` with the repository's merge lock held, so two merges never race for one base. */
function withRepoLock<T>(repo: RepoRec, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(repo.id) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  locks.set(
    repo.id,
    next.catch(() => undefined),
  );
  return next;
}

function identityOf(app: App, login: string): Record<string, string> {
  const user = app.store.user(login);
  const email = `${user?.id ?? 0}+${login}@users.noreply.sandbox.invalid`;
  return { GIT_AUTHOR_NAME: login, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: "Sandbox", GIT_COMMITTER_EMAIL: "noreply@sandbox.invalid" };
}

/** Mergeability for the PR's current head and base, cached per (head, base) pair. */
export async function computeMergeable(app: App, repo: RepoRec, pr: PullRec): Promise<boolean | null> {
  const gitDir = app.gitDir(repo);
  const baseSha = await app.commits.commit(gitDir, `refs/heads/${pr.base}`);
  const headSha = pr.headSha;
  if (!baseSha) return null;
  if (pr.mergeable && pr.mergeable.headSha === headSha && pr.mergeable.baseSha === baseSha) return pr.mergeable.value;
  const tree = await mergedTreeNow(app, gitDir, baseSha, headSha);
  pr.mergeable = { headSha, baseSha, value: tree !== null, ...(tree ? { tree } : {}) };
  return pr.mergeable.value;
}

/** merge-tree's tree for (base, head) now: the head's own when it is the base's child (head-on-base.ts), else git's; null when they conflict. */
async function mergedTreeNow(app: App, gitDir: string, baseSha: string, headSha: string): Promise<string | null> {
  return (await childOfBase(app, gitDir, baseSha, headSha))?.tree ?? mergeTree(gitDir, baseSha, headSha);
}

/**
 * The merged tree of (base, head): the one the mergeability check wrote for this very pair when it
 * is still in the repository (merge-tree gives the same tree for the same two commits), else
 * merge-tree's answer now; null when they conflict.
 */
async function mergedTree(app: App, gitDir: string, pr: PullRec, baseSha: string, headSha: string): Promise<string | null> {
  const known = pr.mergeable;
  if (known?.value && known.headSha === headSha && known.baseSha === baseSha && known.tree && /^[0-9a-f]{40,64}$/.test(known.tree)) {
    if (await app.commits.isTree(gitDir, known.tree)) return known.tree;
  }
  return mergedTreeNow(app, gitDir, baseSha, headSha);
}

/**
 * GitHub's closing keywords (https://docs.github.com/issues/tracking-your-work-with-issues/linking-a-pull-request-to-an-issue):
 * `fixes #6`, and, when `repo` is given, `fixes owner/repo#6` and `fixes https://…/owner/repo/issues/6`
 * naming this repository (case-insensitive, as GitHub matches names).
 */
export function closingReferences(text: string, repo?: { owner: string; name: string }): number[] {
  const found = new Set<number>();
  const re = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:([\w.-]+)\/([\w.-]+)#|#|https?:\/\/[^/\s]+\/([\w.-]+)\/([\w.-]+)\/issues\/)(\d+)\b/gi;
  for (const m of text.matchAll(re)) {
    const [owner, name] = m[1] !== undefined ? [m[1], m[2]!] : m[3] !== undefined ? [m[3], m[4]!] : [null, null];
    if (owner !== null && (!repo || owner.toLowerCase() !== repo.owner.toLowerCase() || name!.toLowerCase() !== repo.name.toLowerCase())) continue;
    found.add(Number(m[5]));
  }
  return [...found];
}

async function rebaseOnto(app: App, gitDir: string, baseSha: string, headSha: string, actor: string): Promise<string | null> {
  const list = (await gitOk(["rev-list", "--reverse", "--no-merges", `${baseSha}..${headSha}`], { gitDir })).split("\n").filter(Boolean);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-rebase-"));
  const env = identityOf(app, actor);
  try {
    await gitOk(["worktree", "add", "--detach", "--quiet", dir, baseSha], { gitDir });
    for (const sha of list) {
      // Keep each commit's author; the sandbox is the committer, as GitHub's rebase merge does.
      const r = await git(["cherry-pick", "--allow-empty", "--keep-redundant-commits", sha], {
        cwd: dir,
        env: { GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME ?? "", GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL ?? "" },
      });
      if (r.code !== 0) return null;
    }
    return (await gitOk(["rev-parse", "HEAD"], { cwd: dir })).trim();
  } finally {
    await git(["worktree", "remove", "--force", dir], { gitDir });
    await fsp.rm(dir, { recursive: true, force: true });
    await git(["worktree", "prune"], { gitDir });
  }
}

export interface MergeInput {
  sha?: string | null;
  method: MergeMethod;
  title?: string | null;
  message?: string | null;
}

export function mergePull(app: App, repo: RepoRec, issue: IssueRec, input: MergeInput, actor: string): Promise<{ sha: string }> {
  return withRepoLock(repo, () => mergeLocked(app, repo, issue, input, actor));
}

async function mergeLocked(app: App, repo: RepoRec, issue: IssueRec, input: MergeInput, actor: string): Promise<{ sha: string }> {
  const pr = issue.pr;
  if (!pr || pr.merged || issue.state !== "open") throw new HttpError(405, "Pull Request is not mergeable");
  if (pr.draft) throw new HttpError(405, "Pull Request is still a draft");
  const allowed = { merge: repo.allowMergeCommit, squash: repo.allowSquashMerge, rebase: repo.allowRebaseMerge }[input.method];
  if (!allowed)
    throw new HttpError(
      405,
      `${{ merge: "Merge commits", squash: "Squash merges", rebase: "Rebase merges" }[input.method]} are not allowed on this repository.`,
    );
  const gitDir = app.gitDir(repo);
  const headSha = (await app.commits.commit(gitDir, `refs/heads/${pr.head}`)) ?? pr.headSha;
  if (input.sha && input.sha !== headSha) throw new HttpError(409, "Head branch was modified. Review and try the merge again.");
  // The base's rulesets: required reviews and status checks (./rulesets.ts; 405 like a protected branch).
  const passed = new Set([
    ...repo.checkRuns.filter((c) => c.headSha === headSha && c.conclusion === "success").map((c) => c.name),
    ...repo.statuses.filter((st) => st.sha === headSha && st.state === "success").map((st) => st.context),
  ]);
  const violation = mergeViolation(repo, pr.base, passed);
  if (violation) throw new HttpError(405, violation);
  const baseSha = await app.commits.commit(gitDir, `refs/heads/${pr.base}`);
  if (!baseSha) throw new HttpError(405, "Pull Request is not mergeable");
  const tree = await mergedTree(app, gitDir, pr, baseSha, headSha);
  pr.mergeable = { headSha, baseSha, value: tree !== null, ...(tree ? { tree } : {}) };
  if (tree === null) throw new HttpError(405, "Pull Request is not mergeable");
  const title = input.title ?? undefined;
  const env = identityOf(app, actor);
  let newSha: string | null;
  let landedMessage: string | null = null;
  if (input.method === "merge") {
    const message = `${title ?? `Merge pull request #${issue.number} from ${repo.owner}/${pr.head}`}\n\n${input.message ?? issue.title}\n`;
    newSha = await makeCommit(gitDir, tree, [baseSha, headSha], message, env);
  } else if (input.method === "squash") {
    // The commits' subjects are the default body only: a merge that gives its own message (the
    // Run's squash does) needs no `git log` for them.
    const body = input.message ?? (await gitOk(["log", "--format=* %s", `${baseSha}..${headSha}`], { gitDir })).trim();
    const message = `${title ?? `${issue.title} (#${issue.number})`}\n\n${body}\n`;
    newSha = await makeCommit(gitDir, tree, [baseSha], message, env);
    landedMessage = message;
  } else {
    newSha = await rebaseOnto(app, gitDir, baseSha, headSha, actor);
    if (!newSha) throw new HttpError(405, "Pull Request is not mergeable");
  }
  // What lands on the base: a squash lands only its own message; a merge or rebase lands every commit's.
  const mergedMessages = landedMessage ?? (await gitOk(["log", "--format=%B", `${baseSha}..${newSha}`], { gitDir })).trim();
  if (!(await app.refs.cas(gitDir, `refs/heads/${pr.base}`, newSha, baseSha))) {
    throw new HttpError(409, "Base branch was modified. Review and try the merge again.");
  }
  // From here on nothing awaits before the state is complete: the ref moved, so the record must too.
  const now = isoNow();
  pr.merged = true;
  pr.mergedAt = now;
  pr.mergedBy = actor;
  pr.mergeCommitSha = newSha;
  pr.headSha = headSha;
  addEvent(app, issue, actor, "merged", { commitId: newSha });
  setState(app, issue, "closed", actor, "completed");
  repo.pushedAt = now;
  if (pr.base === repo.defaultBranch) {
    for (const n of closingReferences(`${issue.body ?? ""}\n${mergedMessages}`, repo)) {
      const target = repo.issues[n - 1];
      if (!target || target.pr || target.state !== "open") continue;
      addEvent(app, target, actor, "referenced", { commitId: newSha });
      setState(app, target, "closed", actor, "completed");
    }
  }
  if (repo.deleteBranchOnMerge && pr.head !== repo.defaultBranch) {
    if (await app.refs.delete(gitDir, `refs/heads/${pr.head}`, headSha)) addEvent(app, issue, actor, "head_ref_deleted");
  }
  await app.store.changed();
  return { sha: newSha };
}
