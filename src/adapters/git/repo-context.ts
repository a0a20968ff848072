/** What the Workspace adapter's parts share: the git runner, the main checkout, the remote. */
import type { Log } from "../../ports/log";
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
  /** The Run's log, when the front door gave one: a talk left to git says so here (ADR 0486). */
  log?: Log;
}
