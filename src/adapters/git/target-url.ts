/**
 * The Target's git URL as the Run computes it from what it talks to (the API URL and owner/name):
 * the one URL the token is ever sent to by git (ADR 0150). The inverse of parseRemoteUrl (src/app/target.ts).
 */
import type { RepoRef } from "../../ports/tracker";

export function gitUrlFor(apiUrl: string, repo: RepoRef): string {
  const api = new URL(apiUrl);
  const path = `${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}.git`;
  if (api.hostname === "api.github.com") return `https://github.com/${path}`;
  // GitHub Enterprise Server serves its API under /api/v3 and git at the root; the sandbox serves both at its root.
  const base = `${api.protocol}//${api.host}${api.pathname.replace(/\/+$/, "").replace(/\/api\/v3$/, "")}`;
  return `${base}/${path}`;
}
