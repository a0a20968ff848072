/** What a push changes besides refs: open pull request heads, and CI for them. */
import type { App, RefUpdate } from "./app";
import { isoNow } from "./model";
import type { RepoRec } from "./model";

export async function onPushed(app: App, repo: RepoRec, updates: RefUpdate[], _pusher: string): Promise<void> {
  const now = isoNow();
  repo.pushedAt = now;
  for (const u of updates) {
    if (!u.ref.startsWith("refs/heads/") || !u.after) continue;
    const branch = u.ref.slice("refs/heads/".length);
    for (const issue of repo.issues) {
      const pr = issue.pr;
      if (!pr || issue.state !== "open" || pr.head !== branch) continue;
      pr.headSha = u.after;
      issue.updatedAt = now;
      app.onHeadChanged(repo, u.after, branch);
    }
  }
  await app.store.changed();
}
