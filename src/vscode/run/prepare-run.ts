import { AGENT_NAMES } from "../../core/schemas/config";
import type { ExtensionServices } from "../services";
import type { RunServices } from "./run-services";
import { applyRunSettings, readRunSettings, type RunSettings } from "./run-settings";
import { agentCommandLine, type StartConsent } from "./start-confirmation";
import { loadConfig } from "../../app/config-load";
import type { PreparedRun } from "./window-run";
import { resolveWindowTarget } from "./window-target";

export interface PreparedStart {
  readonly prepared: PreparedRun;
  readonly settings: RunSettings;
  readonly consent: StartConsent;
  readonly readyLabel: string;
}

/**
 * Everything a Start needs, built with the same factory as `ticket-runner run`
 * (src/app/compose-run.ts): the Target and session, the team's ticket-runner.json with this
 * person's settings over it, and the Run (not started). No request and no process yet.
 */
export async function prepareRun(services: ExtensionServices & { readonly runs: RunServices }, tickets: number[] | null): Promise<PreparedStart> {
  const target = await resolveWindowTarget(services);
  const settings = readRunSettings();
  const config = applyRunSettings(loadConfig(target.folder), settings);
  // Loaded at the first Start, not at activation: dist/run-machinery.js (ADR 0266).
  const { composeRun } = await import("../../app/compose-run");
  const composed = composeRun(
    {
      config,
      apiUrl: target.apiUrl,
      token: target.token,
      repo: target.repo,
      cwd: target.folder,
      runRoot: target.runRoot,
      log: services.log,
      env: process.env,
      distDir: services.runs.distDir,
    },
    { ...(tickets ? { tickets } : {}), lanes: config.lanes, command: tickets ? `VS Code: Start on Ticket #${tickets.join(" #")}` : "VS Code: Start" },
  );
  const agent = config.agent.kind === "command" ? `${config.agent.command?.[0] ?? "custom"} (command)` : AGENT_NAMES[config.agent.kind];
  return {
    prepared: {
      run: composed.run,
      repo: target.name,
      root: target.folder,
      agent,
      lanes: config.lanes,
      narrowedTo: tickets,
      tracker: composed.tracker,
      redactEnv: target.redactEnv,
      lanePath: (n) => composed.workspace.lanePath(n),
    },
    settings,
    consent: { repo: target.name, lanes: config.lanes, agent, commandLine: agentCommandLine(config.agent) },
    readyLabel: config.labels.ready,
  };
}
