/** What the Workspace adapter's parts share: the git runner, the main checkout, the remote. */
import type { GitRunner } from "./git-runner";
import type { RemoteGit } from "./remote-git";

export interface RepoContext {
  git: GitRunner;
  /** The Target's main checkout. */
  root: string;
  /** Remote name, "origin" unless told otherwise: names the tracking refs; the URL is `net`'s. */
  remote: string;
  /** The only way to the remote (ADR 0150). */
  net: RemoteGit;
}
