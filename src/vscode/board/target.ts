// No `vscode` import: finds the Target (owner/repo) and its labels from folders on disk.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { configSchema } from "../../core/schemas/config";
import type { BoardLabels } from "../../core/board/types";
import type { RepoRef } from "../../ports/tracker";
import { readRemoteUrls, remoteMatchesApi } from "../git-remote";

const NAME = /^[A-Za-z0-9_.-]+$/;

/** `owner/repo` from a git remote URL: scp form, https, ssh://, or the sandbox's http URL. */
export function repoFromRemote(url: string): RepoRef | null {
  const scp = /^(?:[^@/]+@)?[^:/]+:(?!\/\/)(.+)$/.exec(url);
  let path: string;
  if (scp?.[1] && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) path = scp[1];
  else {
    try {
      path = new URL(url).pathname;
    } catch {
      return null;
    }
  }
  const parts = path.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "").split("/");
  if (parts.length < 2) return null;
  const [owner, repo] = parts.slice(-2);
  if (!owner || !repo || !NAME.test(owner) || !NAME.test(repo)) return null;
  return { owner, repo };
}

export interface TargetFolder {
  folder: string;
  repo: RepoRef;
}

/** The first folder whose remote is on the API we talk to. */
export async function findTarget(folders: readonly string[], apiUrl: string): Promise<TargetFolder | null> {
  for (const folder of folders) {
    for (const url of await readRemoteUrls(folder)) {
      if (!remoteMatchesApi(url, apiUrl)) continue;
      const repo = repoFromRemote(url);
      if (repo) return { folder, repo };
    }
  }
  return null;
}

export const DEFAULT_LABELS: BoardLabels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" };

/** Labels from the Target's `ticket-runner.json`; the defaults when it is absent or unreadable (reported). */
export async function readLabels(folder: string, onProblem: (why: string) => void): Promise<BoardLabels> {
  let text: string;
  try {
    text = await readFile(join(folder, "ticket-runner.json"), "utf8");
  } catch {
    return DEFAULT_LABELS;
  }
  try {
    const parsed = configSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { ready: parsed.data.labels.ready, inProgress: parsed.data.labels.inProgress, human: parsed.data.labels.human };
    onProblem(`ticket-runner.json: ${parsed.error.issues[0]?.path.join(".") ?? ""} ${parsed.error.issues[0]?.message ?? "invalid"}; using the default labels`);
  } catch (e) {
    onProblem(`ticket-runner.json is not JSON (${e instanceof Error ? e.message : String(e)}); using the default labels`);
  }
  return DEFAULT_LABELS;
}
