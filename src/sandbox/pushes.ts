/**
 * What a ref change does besides moving the ref, as on GitHub:
 * - an open pull request whose head branch moved gets the new head (and `refs/pull/N/head`, and a CI run);
 * - an open pull request whose head branch was deleted is closed;
 * - commits landing on the default branch close the issues their messages name with closing keywords.
 */
import type { App, RefUpdate } from "./app";
import { git } from "./git";
import { addEvent, setState } from "./issue-ops";
import { isoNow } from "./model";
import type { RepoRec } from "./model";
import { closingReferences } from "./pull-ops";

export async function onPushed(app: App, repo: RepoRec, updates: RefUpdate[], pusher: string): Promise<void> {
  const now = isoNow();
  repo.pushedAt = now;
  for (const u of updates) {
    if (!u.ref.startsWith("refs/heads/")) continue;
    const branch = u.ref.slice("refs/heads/".length);
    if (branch === repo.defaultBranch && u.after) await closeFromCommits(app, repo, u, pusher);
    for (const issue of repo.issues) {
      const pr = issue.pr;
      if (!pr || issue.state !== "open" || pr.head !== branch) continue;
      issue.updatedAt = now;
      if (u.after) {
        pr.headSha = u.after;
        await app.refs.keepPullHead(app.gitDir(repo), issue.number, u.after);
        app.onHeadChanged(repo, u.after, branch);
      } else {
        addEvent(app, issue, pusher, "head_ref_deleted");
        setState(app, issue, "closed", pusher);
      }
    }
  }
  await app.store.changed();
}

/** Pushes to one repository between two `git gc --auto` of it (receive-pack runs none: RECEIVE_PACK_CONFIG in git.ts). */
export const PUSHES_PER_GC = 50;

const pushesSinceGc = new WeakMap<App, Map<number, number>>();

/**
 * `git gc --auto` every PUSHES_PER_GC pushes to a repository, after the push was answered, as
 * GitHub maintains repositories in the background: loose objects are packed when there are many
 * (gc.auto), as receive-pack did after each push. Not detached, so stop() waits for it.
 */
export function maintainAfterPush(app: App, repo: RepoRec): void {
  let counts = pushesSinceGc.get(app);
  if (!counts) pushesSinceGc.set(app, (counts = new Map()));
  const n = (counts.get(repo.id) ?? 0) + 1;
  counts.set(repo.id, n % PUSHES_PER_GC);
  if (n < PUSHES_PER_GC || app.stopping) return;
  app.track(git(["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"], { gitDir: app.gitDir(repo) }));
}

async function closeFromCommits(app: App, repo: RepoRec, u: RefUpdate, pusher: string): Promise<void> {
  const range = u.before ? `${u.before}..${u.after}` : (u.after ?? "");
  const r = await git(["log", "--format=%H%n%B", "-n", "200", range], { gitDir: app.gitDir(repo) });
  if (r.code !== 0) return;
  for (const n of closingReferences(r.stdout, repo)) {
    const target = repo.issues[n - 1];
    if (!target || target.pr || target.state !== "open") continue;
    addEvent(app, target, pusher, "referenced", { commitId: u.after ?? undefined });
    setState(app, target, "closed", pusher, "completed");
  }
}
