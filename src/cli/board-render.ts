/**
 * `ticket-runner board`: the same board model as the tree view (src/core/board/), fetched the
 * same way (one GraphQL query per 100 tickets), printed as a table with the Run column, or as
 * JSON with `--json`. The command file (commands/board.ts) parses options and calls printBoard.
 */
import { rememberTitles, titlesFile } from "./ticket-titles";
import { FsRunRoot } from "../adapters/fs-run-root";
import { createGitHubBoard } from "../adapters/github/board-wiring";
import type { BoardOctokit } from "../adapters/github/board-poller";
import type { Host } from "../ports/host";
import type { Log } from "../ports/log";
import type { BoardFilter, BoardModel, BoardRow } from "../core/board/types";
import type { CliIo } from "./command";
import { redactSecrets } from "../core/redact";
import { systemClock } from "./claim-wiring";
import type { Target } from "../app/target";

export interface PrintBoardOptions {
  json: boolean;
  filter?: BoardFilter;
  /** Characters of title in the table; the terminal's width when known. */
  titleWidth?: number;
}

/** Fetches once and prints. Exit code 0, or 1 when GitHub could not be read (the reason on stderr). */
export async function printBoard(target: Target, wiring: { octokit: BoardOctokit; host: Host; log: Log }, io: CliIo, opts: PrintBoardOptions): Promise<number> {
  const board = createGitHubBoard({
    octokit: wiring.octokit,
    repo: target.repo,
    host: wiring.host,
    runRoot: new FsRunRoot(target.runRoot),
    labels: target.config.labels,
    clock: systemClock,
    log: wiring.log,
    // A failed fetch is said once, by the final line below; the refresher's own line is a detail.
    failureLog: "debug",
  });
  await board.refresher.refresh();
  const view = board.refresher.view(opts.filter ?? "all");
  if (view.error || !view.model) {
    io.err(redactSecrets(`ticket-runner board: could not read ${target.repo.owner}/${target.repo.repo}: ${view.error?.message ?? "no answer"}`, io.env));
    return 1;
  }
  for (const line of opts.json ? [JSON.stringify(boardJson(view.model), null, 2)] : renderBoardText(view.model, opts.titleWidth ?? 48)) io.out(line);
  // What `start --offline` names a branch after, later, with no network.
  const rows = view.model.sections.flatMap((s) => s.rows.map((r) => ({ ticket: r.number, title: r.fullTitle })));
  const unsaved = rememberTitles(titlesFile(target.runRoot, target.repo), rows, systemClock.now());
  if (unsaved) wiring.log.debug(`ticket titles not kept for --offline: ${unsaved}`);
  return 0;
}

/** What `--json` prints: the model as the tree view gets it, minus nothing. Stable field names. */
function boardJson(model: BoardModel): object {
  return {
    repo: model.repo,
    viewer: model.viewer,
    host: model.hostName,
    builtAt: model.builtAt,
    filter: model.filter,
    runningHere: model.runningHere,
    total: model.total,
    sections: model.sections.map((s) => ({
      id: s.id,
      title: s.title,
      count: s.count,
      rows: s.rows.map((r) => ({
        number: r.number,
        title: r.fullTitle,
        labels: r.labels,
        runColumn: r.runColumn,
        marker: r.marker,
        running: r.spinning,
        mine: r.mine,
        contextValue: r.contextValue,
        issueUrl: r.issueUrl,
        leaseUrl: r.leaseUrl,
        holder: r.holder,
        lease: r.lease,
        localRunDir: r.localRunDir,
        worktree: r.worktree,
        notes: r.notes,
      })),
    })),
  };
}

function fit(text: string, width: number): string {
  const points = Array.from(text);
  if (points.length <= width) return text + " ".repeat(width - points.length);
  return points.slice(0, width - 1).join("") + "…";
}

function rowLines(r: BoardRow, titleWidth: number): string[] {
  const lines = [`  #${String(r.number).padEnd(6)}${fit(r.title, titleWidth)}  ${r.runColumn}`];
  if (r.leaseUrl && r.contextParts.includes("claimed")) lines.push(`          lease ${r.leaseUrl}`);
  if (r.localRunDir) lines.push(`          run   ${r.localRunDir}`);
  for (const note of r.notes) lines.push(`          note  ${note}`);
  return lines;
}

function renderBoardText(model: BoardModel, titleWidth = 48): string[] {
  const head = `${model.repo} · as ${model.viewer} on ${model.hostName} · ${model.total} ticket${model.total === 1 ? "" : "s"} · ${model.runningHere} running here`;
  if (model.total === 0)
    return [head, model.filter === "mine" ? "Nothing on the board is yours." : "No open tickets (ready-for-agent, in-progress or ready-for-human)."];
  const lines = [head];
  for (const s of model.sections) {
    if (s.count === 0) continue;
    lines.push("", `${s.title} (${s.count})`);
    for (const r of s.rows) lines.push(...rowLines(r, titleWidth));
  }
  return lines;
}
