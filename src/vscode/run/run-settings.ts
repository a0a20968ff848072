import * as vscode from "vscode";
import { AGENT_KINDS } from "../../core/schemas/config";
import type { Config } from "../../core/schemas/config";
import { Refusal } from "../../core/errors";
import { asNotificationLevel, type NotificationLevel } from "./notification-policy";
import { asWorktreeSetting, type WorktreeSetting } from "./worktree-policy";

/** The extension's settings a Run reads, each read at Start (a change applies to the next Run). */
export interface RunSettings {
  /** Set by the person (user, workspace or folder); undefined = the Target's ticket-runner.json decides. */
  readonly lanes: number | undefined;
  readonly agent: Config["agent"]["kind"] | undefined;
  readonly agentCommand: readonly string[];
  readonly runRoot: string | undefined;
  readonly worktreeFolders: WorktreeSetting;
  readonly notifications: NotificationLevel;
}

function explicit<T>(config: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = config.inspect<T>(key);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

export function readRunSettings(): RunSettings {
  const c = vscode.workspace.getConfiguration("ticketRunner");
  const lanes = explicit<number>(c, "lanes");
  const agent = explicit<string>(c, "agent");
  return {
    lanes: typeof lanes === "number" && Number.isInteger(lanes) && lanes >= 1 && lanes <= 16 ? lanes : undefined,
    agent: AGENT_KINDS.find((k) => k === agent),
    agentCommand: (c.get<string[]>("agentCommand") ?? []).filter((a) => typeof a === "string"),
    runRoot: c.get<string>("runRoot")?.trim() || undefined,
    worktreeFolders: asWorktreeSetting(c.get("worktreeFolders")),
    notifications: asNotificationLevel(c.get("notifications")),
  };
}

/**
 * The Target's team settings (ticket-runner.json) with the person's settings over them: lanes and
 * the agent. `agent: command` needs the argv from the user settings (machine scope: a cloned
 * repository cannot choose a program to run on this machine).
 */
export function applyRunSettings(config: Config, s: RunSettings): Config {
  const kind = s.agent ?? config.agent.kind;
  const agent: Config["agent"] = { ...config.agent, kind };
  if (s.agent === "command") {
    if (s.agentCommand.length === 0) {
      throw new Refusal(
        "bad-config",
        "ticketRunner.agent is `command`, but ticketRunner.agentCommand is empty. Set the program and its arguments in your user settings.",
        { next: "Open Settings and set ticketRunner.agentCommand" },
      );
    }
    agent.command = [...s.agentCommand];
  }
  return { ...config, lanes: s.lanes ?? config.lanes, agent };
}
