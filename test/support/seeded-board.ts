/**
 * The board suites' one sandbox setup: a sandbox started and the board's tickets seeded before the
 * suite (this Host named "desk"), everything stopped and removed after it, and a builder for the
 * board over it with the default labels, this Host's run root and the real clock.
 */
import type { Octokit } from "@octokit/rest";
import { rmSync } from "node:fs";
import { FsRunRoot } from "../../src/adapters/fs-run-root";
import { createGitHubBoard, type GitHubBoard } from "../../src/adapters/github/board-wiring";
import { NodeClock } from "../../src/adapters/node-clock";
import { NodeHost } from "../../src/adapters/node-host";
import type { BoardLabels } from "../../src/core/board/types";
import type { Log } from "../../src/ports/log";
import type { RunRoot } from "../../src/ports/run-root";
import type { RepoRef } from "../../src/ports/tracker";
import { startSandbox, type SandboxHandle } from "../../src/sandbox/start";
import { sandboxOctokit, seedBoard, type SeededBoard } from "./board-seed";

export const BOARD_LABELS: BoardLabels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" };

export interface SeededBoardSuite {
  readonly sandbox: SandboxHandle;
  readonly seeded: SeededBoard;
  readonly host: NodeHost;
  /** The board as ana sees it, unless another client or run root is given. */
  board(o?: { octokit?: Octokit; repo?: RepoRef; runRoot?: Pick<RunRoot, "list">; lastComments?: number }): GitHubBoard;
}

/** Call inside a `describe`: registers its before and after hooks. `log` gets the board's log. */
export function useSeededBoard(log: Log): SeededBoardSuite {
  const host = new NodeHost({ env: { ...process.env, TICKET_RUNNER_HOST_NAME: "desk" } });
  let sandbox: SandboxHandle | undefined;
  let seeded: SeededBoard | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not there: use it inside a test, after the suite's before hook`);
    return value;
  };
  before(async () => {
    sandbox = await startSandbox({ quiet: true });
    seeded = await seedBoard(sandbox, host.identity());
  });
  after(async () => {
    await sandbox?.stop();
    if (seeded) rmSync(seeded.runRoot, { recursive: true, force: true });
  });
  return {
    get sandbox() {
      return started(sandbox, "the sandbox");
    },
    get seeded() {
      return started(seeded, "the seeded board");
    },
    host,
    board(o = {}) {
      const s = started(seeded, "the seeded board");
      return createGitHubBoard({
        octokit: o.octokit ?? sandboxOctokit(started(sandbox, "the sandbox").apiUrl, s.tokens.ana!),
        repo: o.repo ?? s.repo,
        host,
        runRoot: o.runRoot ?? new FsRunRoot(s.runRoot),
        labels: BOARD_LABELS,
        clock: new NodeClock(),
        log,
        ...(o.lastComments === undefined ? {} : { lastComments: o.lastComments }),
      });
    },
  };
}
