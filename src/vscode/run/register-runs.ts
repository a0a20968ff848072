import { join } from "node:path";
import type { BoardHandle } from "../board-seam";
import type { ExtensionServices } from "../services";
import { BoardRefresh } from "./board-refresh";
import { RunNotifications } from "./run-notifications";
import type { RunServices } from "./run-services";
import { TranscriptChannels } from "./transcript-channels";
import { WindowRun } from "./window-run";
import { WorktreeFolders } from "./worktree-folders";

/**
 * Builds the Run side of the window. Cheap: no Run, no process and no request until Start. The
 * WindowRun is disposed with the extension, and its dispose() is a kill (the window is going away).
 */
export function registerRuns(services: ExtensionServices, board: () => BoardHandle): RunServices {
  const { context, log, notifier, links, statusBar, contextKeys, logChannel } = services;
  const transcripts = new TranscriptChannels();
  const folders = new WorktreeFolders(log, notifier);
  const notifications = new RunNotifications(notifier, links, log, () => logChannel.show(true));
  const boardRefresh = new BoardRefresh(board, log);
  const windowRun = new WindowRun({ log, statusBar, contextKeys, transcripts, folders, notifications, boardRefresh });
  context.subscriptions.push(transcripts, folders, boardRefresh, windowRun);
  return { windowRun, transcripts, folders, distDir: join(context.extensionPath, "dist") };
}
