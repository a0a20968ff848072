// No `vscode` import: finds the Target (owner/repo) and its labels from folders on disk.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { configSchema } from "../../core/schemas/config";
import type { BoardLabels } from "../../core/board/types";
import type { RepoRef } from "../../ports/tracker";
import { readRemoteUrls } from "../../adapters/git/remote-urls";
import { parseRemoteUrl, remoteMatchesApi } from "../../app/target";

export interface TargetFolder {
  folder: string;
  repo: RepoRef;
}

/** The first folder whose remote is on the API we talk to. */
export async function findTarget(folders: readonly string[], apiUrl: string): Promise<TargetFolder | null> {
  for (const folder of folders) {
    for (const url of await readRemoteUrls(folder)) {
      if (!remoteMatchesApi(url, apiUrl)) continue;
      const remote = parseRemoteUrl(url);
      if (remote) return { folder, repo: remote.repo };
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
