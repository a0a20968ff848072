import { FsRunRoot } from "../../adapters/fs-run-root";
import { createGitHubBoard, type GitHubBoard } from "../../adapters/github/board-wiring";
import type { Clock } from "../../ports/clock";
import type { Host } from "../../ports/host";
import type { Log } from "../../ports/log";
import { loadConfigOrDefaults } from "../../app/config-load";
import type { BoardLabels } from "../../core/board/types";
import type { RepoRef } from "../../ports/tracker";
import { windowOctokit } from "../github-client";

/**
 * What the board needs of GitHub and of the Target's ticket-runner.json: loaded with the deferred
 * bundle at the first refresh, after activation (ADR 0301), since it holds Octokit, secretlint and zod.
 */
export interface BoardStackArgs {
  readonly apiUrl: string;
  readonly token: string;
  readonly repo: RepoRef;
  readonly runRoot: string;
  readonly labels: BoardLabels;
  readonly host: Host;
  readonly clock: Clock;
  readonly log: Log;
}

/** The board stack over the window's one client (createOctokit, as the CLI): bounded retries, then the error row. */
export function createBoardStack(a: BoardStackArgs): GitHubBoard {
  const octokit = windowOctokit(a.apiUrl, a.token, a.log);
  return createGitHubBoard({ octokit, repo: a.repo, host: a.host, runRoot: new FsRunRoot(a.runRoot), labels: a.labels, clock: a.clock, log: a.log });
}

/** The Target's labels; throws the loader's Refusal (reason bad-config) when its ticket-runner.json is refused. */
export function boardLabels(folder: string): BoardLabels {
  const { ready, inProgress, human } = loadConfigOrDefaults(folder).labels;
  return { ready, inProgress, human };
}
