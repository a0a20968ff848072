// No `vscode` import: finds the Target (owner/repo) among the folders on disk.
import type { RepoRef } from "../../ports/tracker";
import { readRemoteUrls } from "../../adapters/git/remote-urls";
import { parseRemoteUrl, remoteMatchesApi } from "../../core/remote-url";

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
