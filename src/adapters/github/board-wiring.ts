/**
 * Puts the board together over GitHub (or the sandbox): the GraphQL source, the conditional
 * poller, this Host's run root, the loader and the refresher. The CLI and the extension call this
 * with adapters they built, so both front doors show the same board from the same code.
 */
import { BoardLoader } from "../../core/board/load";
import { readLocalClaims } from "../../core/board/local-claims";
import { fsLocalFiles } from "../fs-run-root";
import { BoardRefresher } from "../../core/board/refresher";
import type { BoardLabels, LocalClaim } from "../../core/board/types";
import type { Clock } from "../../ports/clock";
import type { Host } from "../../ports/host";
import type { Log } from "../../ports/log";
import type { RunRoot } from "../../ports/run-root";
import type { RepoRef } from "../../ports/tracker";
import { BoardPoller } from "./board-poller";
import type { BoardOctokit } from "./board-poller";
import { GitHubBoardSource } from "./board-query";

export interface GitHubBoardOptions {
  octokit: BoardOctokit;
  repo: RepoRef;
  host: Host;
  runRoot: Pick<RunRoot, "list">;
  labels: BoardLabels;
  clock: Clock;
  log: Log;
  lastComments?: number;
  /** See BoardRefresherOptions.failureLog. */
  failureLog?: "warn" | "debug";
}

export interface GitHubBoard {
  source: GitHubBoardSource;
  poller: BoardPoller;
  loader: BoardLoader;
  refresher: BoardRefresher;
  readLocal(): Promise<LocalClaim[]>;
}

export function createGitHubBoard(o: GitHubBoardOptions): GitHubBoard {
  const poller = new BoardPoller(o.octokit, o.repo);
  const source = new GitHubBoardSource({ octokit: o.octokit, repo: o.repo, poller, log: o.log });
  const here = o.host.identity();
  const readLocal = (): Promise<LocalClaim[]> =>
    readLocalClaims({
      runRoot: o.runRoot,
      files: fsLocalFiles,
      repo: o.repo,
      // A run is alive when it is this Host's and its process still runs.
      isAlive: async (run) => run.host.id === here.id && (await o.host.processStartTime(run.pid)) !== null,
      onSkip: (dir, reason) => o.log.warn("board: skipped a run directory", { dir, reason }),
    });
  const loader = new BoardLoader({ source, readLocal, host: here, labels: o.labels, clock: o.clock, log: o.log, lastComments: o.lastComments });
  const refresher = new BoardRefresher({
    load: () => loader.load(),
    poll: () => source.poll(),
    readLocal,
    clock: o.clock,
    log: o.log,
    failureLog: o.failureLog,
  });
  return { source, poller, loader, refresher, readLocal };
}
