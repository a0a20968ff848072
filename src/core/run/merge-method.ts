/**
 * Which merge method a Run uses (ADR 0242): the configured one (`merge.method`) when the repository
 * allows it, else the first the repository allows in GitHub's own order (merge commit, squash,
 * rebase). A repository that allows none is refused before the Run takes its lock. When GitHub does
 * not say (a token that may not read the flags), the configured method is tried, and a 405 is
 * handed off with its fix (merge-refusal).
 */
import type { MergeMethod, RepoRef } from "../../ports/tracker";
import { Refusal } from "../errors";

const GITHUB_ORDER: MergeMethod[] = ["merge", "squash", "rebase"];
const FLAG: Record<MergeMethod, string> = { merge: "allow_merge_commit", squash: "allow_squash_merge", rebase: "allow_rebase_merge" };

export interface MergeChoice {
  method: MergeMethod;
  /** Set when the configured method was not allowed: what the Run says once. */
  note: string | null;
}

export function chooseMergeMethod(repo: RepoRef, configured: MergeMethod, allowed: Record<MergeMethod, boolean> | null): MergeChoice {
  if (!allowed || allowed[configured]) return { method: configured, note: null };
  const first = GITHUB_ORDER.find((m) => allowed[m]);
  const name = `${repo.owner}/${repo.repo}`;
  if (!first) {
    throw new Refusal(
      "bad-config",
      `${name} allows no merge method (allow_merge_commit, allow_squash_merge and allow_rebase_merge are all off), so no ticket could be merged. An admin turns one on (Settings > General > Pull Requests), then \`ticket-runner run\`.`,
      { next: "ticket-runner run" },
    );
  }
  return {
    method: first,
    note: `${name} does not allow the "${configured}" merge method that ticket-runner.json names (${FLAG[configured]} is off); this Run merges with "${first}". Set "merge": { "method": "${first}" } to say so.`,
  };
}
