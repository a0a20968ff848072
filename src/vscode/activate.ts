import * as vscode from "vscode";
import type { TicketRunnerApi } from "./api";
import type { ExtensionServices } from "./services";
import type { BoardFilter } from "./board-seam";
import { createChannelLog } from "./log-channel";
import { Notifier } from "./notifier";
import { ContextKeys } from "./context-keys";
import { Connection } from "./connection";
import { StatusBarItemView } from "./status-bar-item";
import { registerBoard } from "./board/register";
import { registerCommands } from "./run-command";
import { commandTable } from "./command-table";
import { FILTER_STATE_KEY } from "./commands/board";
import { refreshTargetState } from "./target-state";
import { Links } from "./links";
import { Picker } from "./quick-picks";
import { registerRuns } from "./run/register-runs";

/** A moment: the wall clock and the process's CPU time. */
export interface Moment {
  readonly at: number;
  readonly cpu: NodeJS.CpuUsage;
}

/** The bundle's load, timed by loader.ts: from the first line of dist/extension.js to require()'s return. */
export interface BundleLoad {
  readonly started: Moment;
  readonly ended: Moment;
}

function span(from: Moment, to: Moment): { ms: number; cpuMs: number } {
  return { ms: to.at - from.at, cpuMs: (to.cpu.user - from.cpu.user + to.cpu.system - from.cpu.system) / 1000 };
}

/**
 * Builds and wires the whole extension, explicitly, once per activation. Every disposable goes
 * into context.subscriptions. Cheap on purpose: no network, no git process, no heavy module; the
 * sign-in and remote checks run after activate() has returned.
 */
export function activateExtension(context: vscode.ExtensionContext, load: BundleLoad, started: Moment): TicketRunnerApi {
  const logChannel = vscode.window.createOutputChannel("Ticket Runner", { log: true });
  context.subscriptions.push(logChannel);
  const log = createChannelLog(logChannel);
  const notifier = new Notifier(log);
  const contextKeys = new ContextKeys();
  const connection = new Connection(log);
  const statusBar = new StatusBarItemView();
  context.subscriptions.push(connection, statusBar);
  statusBar.show({ kind: "idle" });

  const links = new Links();
  const picker = new Picker();

  const services: ExtensionServices = { context, log, logChannel, notifier, contextKeys, connection, statusBar, links, picker };
  const board = registerBoard(services);
  const runs = registerRuns(services, () => board);
  registerCommands({ ...services, board, runs }, commandTable);

  const filter = context.workspaceState.get<BoardFilter>(FILTER_STATE_KEY) ?? "all";
  void contextKeys.set("ticketRunner.filterMine", filter === "mine");
  board.setFilter(filter);

  const recheck = (): void => {
    void refreshTargetState(services)
      .then(() => board.refresh())
      .catch((e: unknown) => log.error("refreshing the connection state failed", { error: String(e) }));
  };
  context.subscriptions.push(connection.onDidChange(recheck), vscode.workspace.onDidChangeWorkspaceFolders(recheck));
  setImmediate(recheck);

  // Ours: the bundle's load plus the body, not the host's work between them (it builds the context).
  const loaded = span(load.started, load.ended);
  const body = span(started, { at: performance.now(), cpu: process.cpuUsage() });
  const activationMs = loaded.ms + body.ms;
  const activationCpuMs = loaded.cpuMs + body.cpuMs;
  const bundleLoadMs = loaded.ms;
  const activateBodyMs = body.ms;
  log.info("activated", {
    ms: activationMs.toFixed(1),
    cpuMs: activationCpuMs.toFixed(1),
    loadMs: bundleLoadMs.toFixed(1),
    bodyMs: activateBodyMs.toFixed(1),
    version: context.extension.packageJSON?.version as string | undefined,
  });
  return {
    activationMs,
    activationCpuMs,
    bundleLoadMs,
    activateBodyMs,
    logChannel,
    board,
    get notices() {
      return notifier.recent;
    },
    contextKey: (key) => contextKeys.get(key),
    runs,
    notifier,
    links,
    picker,
    statusBar: () => statusBar.current,
  };
}
