/** Applies a built-in seed to a running sandbox, once (a restart with --data keeps it). */
import type { App } from "../app";
import { ADMIN_LOGIN } from "../model";
import { addLabels, openIssue } from "../issue-ops";
import { createRepo } from "../repos-admin";
import { demoIssues, demoRepo } from "./demo";

export type SeedName = "demo" | "none";

export async function applySeed(app: App, seed: SeedName): Promise<void> {
  if (seed !== "demo") return;
  if (app.store.repo(demoRepo.owner, demoRepo.name)) return;
  const repo = await createRepo(app, demoRepo);
  for (const spec of demoIssues) {
    const issue = openIssue(app, repo, { title: spec.title, body: spec.body, user: ADMIN_LOGIN });
    addLabels(app, repo, issue, spec.labels, ADMIN_LOGIN);
  }
  await app.store.changed();
}
