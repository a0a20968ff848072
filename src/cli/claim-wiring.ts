/**
 * Builds the claim protocol for a CLI command: the Octokit client, the Tracker, this Host's run
 * root and identity. Only called on the online path: an --offline command never reaches here, so
 * it cannot make a network call by accident.
 */
import { randomUUID } from "node:crypto";
import type { FsRunRoot } from "../adapters/fs-run-root";
import { createOctokit, type GitHubClient } from "../adapters/github/client";
import { OctokitTracker } from "../adapters/github/octokit-tracker";
import { NodeClock } from "../adapters/node-clock";
import { NodeHost } from "../adapters/node-host";
import { composeClaims } from "../app/compose-claims";
import type { ClaimProtocol } from "../core/claims/claim-protocol";
import { redactSecrets } from "../core/redact";
import type { Clock } from "../ports/clock";
import type { Log, LogFields } from "../ports/log";
import type { CliIo } from "./command";
import { requireToken, type Target } from "../app/target";

export const systemClock: Clock = new NodeClock();

/** Warnings and errors go to stderr (an ignored lease says why); info and debug only with TICKET_RUNNER_LOG. */
export function cliLog(io: CliIo): Log {
  const level = io.env.TICKET_RUNNER_LOG ?? "warn";
  const show = (l: string) => (l === "debug" ? level === "debug" : l === "info" ? level === "debug" || level === "info" : true);
  const write = (l: string, message: string, fields?: LogFields) => {
    if (!show(l)) return;
    const extra = fields && Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : "";
    io.err(redactSecrets(`${l}: ${message}${extra}`, io.env));
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

export interface ClaimWiring {
  gate: ClaimProtocol;
  tracker: OctokitTracker;
  octokit: GitHubClient;
  host: NodeHost;
  runRoot: FsRunRoot;
  log: Log;
  token: string;
}

export function wireClaims(target: Target, io: CliIo, holder: "person" | "machine"): ClaimWiring {
  const token = requireToken(target);
  const log = cliLog(io);
  const octokit = createOctokit({ apiUrl: target.apiUrl, token, log });
  const tracker = new OctokitTracker(octokit, target.repo);
  const host = new NodeHost({ env: io.env });
  const { gate, runRoot } = composeClaims({
    tracker,
    runRoot: target.runRoot,
    host,
    clock: systemClock,
    log,
    config: target.config,
    holder,
    runId: `cli-${randomUUID()}`,
  });
  return { gate, tracker, octokit, host, runRoot, log, token };
}
