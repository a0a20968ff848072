import { randomUUID } from "node:crypto";
import type { FsRunRoot } from "../../adapters/fs-run-root";
import { windowOctokit } from "../github-client";
import { OctokitTracker } from "../../adapters/github/octokit-tracker";
import { NodeClock } from "../../adapters/node-clock";
import { NodeHost } from "../../adapters/node-host";
import type { ClaimProtocol } from "../../core/claims/claim-protocol";
import { composeClaims } from "../../app/compose-claims";
import type { Config } from "../../core/schemas/config";
import type { Log } from "../../ports/log";
import type { WindowTarget } from "./window-target";

export interface PersonClaims {
  readonly gate: ClaimProtocol;
  readonly tracker: OctokitTracker;
  readonly runRoot: FsRunRoot;
}

/**
 * The claim protocol for a person's action from the board (Claim, Take Over, Release, Hand Back):
 * the same code and the same wiring as `ticket-runner claim/release` (src/app/compose-claims.ts),
 * with the lease held by a person, so no machine ever treats it as stale.
 */
export function personClaims(target: WindowTarget, config: Config, log: Log): PersonClaims {
  const octokit = windowOctokit(target.apiUrl, target.token, log);
  const tracker = new OctokitTracker(octokit, target.repo);
  const host = new NodeHost({ env: process.env });
  const { gate, runRoot } = composeClaims({
    tracker,
    runRoot: target.runRoot,
    host,
    clock: new NodeClock(),
    log,
    config,
    holder: "person",
    runId: `vscode-${randomUUID()}`,
  });
  return { gate, tracker, runRoot };
}
