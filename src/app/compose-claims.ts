/**
 * The one wiring of the claim protocol, for a Run (holder "machine", composeRun), a CLI command
 * (`ticket-runner claim/release/start`, src/cli/claim-wiring.ts) and a person's action from the
 * board (src/vscode/run/claims-wiring.ts): this Host's run root, identity and liveness rule, the
 * Target's labels and lease. Each front door brings its own Tracker (the extension shares one
 * client per window) and its log.
 */
import { FsRunRoot } from "../adapters/fs-run-root";
import type { NodeHost } from "../adapters/node-host";
import { createClaimGate, type ClaimProtocol } from "../core/claims/claim-protocol";
import type { Config } from "../core/schemas/config";
import type { Clock } from "../ports/clock";
import type { Log } from "../ports/log";
import type { Tracker } from "../ports/tracker";

export interface ComposeClaimsInput {
  tracker: Tracker;
  /** This Host's run root for local claims (run.json). */
  runRoot: string;
  host: NodeHost;
  clock: Clock;
  log: Log;
  config: Pick<Config, "labels" | "lease">;
  holder: "person" | "machine";
  runId: string;
  /** Holding the Target's lock proves a Run on another Host that left a Stranded ticket is gone. */
  adoptAcrossHosts?: boolean;
}

export interface ComposedClaims {
  gate: ClaimProtocol;
  runRoot: FsRunRoot;
}

export function composeClaims(input: ComposeClaimsInput): ComposedClaims {
  const { host } = input;
  const runRoot = new FsRunRoot(input.runRoot);
  const gate = createClaimGate({
    tracker: input.tracker,
    runRoot,
    host: host.identity(),
    clock: input.clock,
    log: input.log,
    labels: input.config.labels,
    lease: input.config.lease,
    holder: input.holder,
    runId: input.runId,
    pid: host.pid(),
    ...(input.adoptAcrossHosts === undefined ? {} : { adoptAcrossHosts: input.adoptAcrossHosts }),
    // A run.json left by a killed process on this Host is not a live claim: its process is gone.
    isAlive: async (run) => run.host.id === host.identity().id && (await host.processStartTime(run.pid)) !== null,
  });
  return { gate, runRoot };
}
