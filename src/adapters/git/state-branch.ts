/**
 * The State files on `ticket-runner/state`: ticket-<n>.json, plus kept transcripts under ticket-<n>/.
 * Every change rewrites the branch as ONE parentless snapshot commit (nothing reads its history,
 * and a branch that grew with every Stage would grow the Target with it).
 */
import { Failure } from "../../core/errors";
import { stateFileSchema } from "../../core/schemas/state-file";
import type { StateFile } from "../../core/schemas/state-file";
import type { StateRead } from "../../ports/workspace";
import { transact } from "./branch-txn";
import { parseStateFile, serializeState, stateFilePath, stateFileTicket } from "./records";
import type { RepoContext } from "./repo";
import type { TreeFiles } from "./snapshot";
import { listFiles, readBlobs, readTip, writeBlob } from "./snapshot";
import type { TranscriptFile } from "./transcripts";
import { loadTranscripts, ticketTranscriptPrefix, transcriptDir } from "./transcripts";

export const STATE_BRANCH = "ticket-runner/state";

export interface StateBranchOptions {
  /** Retries after a lost race. The seed's rule: up to three. */
  retries?: number;
}

export class StateBranch {
  private readonly retries: number;

  constructor(
    private readonly ctx: RepoContext,
    opts: StateBranchOptions = {},
  ) {
    this.retries = opts.retries ?? 3;
  }

  async readAll(): Promise<StateRead> {
    const files = await listFiles(this.ctx, await readTip(this.ctx, STATE_BRANCH));
    const named = [...files].flatMap(([path, sha]) => {
      const ticket = stateFileTicket(path);
      return ticket === null ? [] : [{ path, sha, ticket }];
    });
    const blobs = await readBlobs(this.ctx, named.map((n) => n.sha));
    const read: StateRead = { files: [], unreadable: [] };
    for (const { path, sha, ticket } of named.sort((a, b) => a.ticket - b.ticket)) {
      const parsed = parseStateFile(path, ticket, blobs.get(sha) ?? "");
      if (parsed.ok) read.files.push(parsed.state);
      else read.unreadable.push({ path, reason: parsed.reason, writtenBy: parsed.writtenBy, ticket });
    }
    return read;
  }

  async readOne(ticket: number): Promise<StateFile | null> {
    const files = await listFiles(this.ctx, await readTip(this.ctx, STATE_BRANCH));
    return this.current(files, ticket);
  }

  /** Paths of the transcripts kept for a ticket, relative to the branch root. */
  async transcripts(ticket: number): Promise<string[]> {
    const files = await listFiles(this.ctx, await readTip(this.ctx, STATE_BRANCH));
    const prefix = ticketTranscriptPrefix(ticket);
    return [...files.keys()].filter((p) => p.startsWith(prefix)).sort();
  }

  /**
   * Applies `change` to the ticket's State as it is on the remote now, and pushes the result.
   * null removes the State file and the ticket's kept transcripts. A file this version cannot read
   * is never rewritten: the change throws instead.
   */
  change(ticket: number, change: (current: StateFile | null) => StateFile | null): Promise<StateFile | null> {
    return transact(this.ctx, STATE_BRANCH, { retries: this.retries, keepHistory: false }, async (files) => {
      const current = await this.current(files, ticket);
      const next = change(current);
      const path = stateFilePath(ticket);
      if (next === null) {
        const doomed = [...files.keys()].filter((p) => p === path || p.startsWith(ticketTranscriptPrefix(ticket)));
        for (const p of doomed) files.delete(p);
        return { changed: doomed.length > 0, message: `Ticket #${ticket}: State removed`, value: null };
      }
      const valid = stateFileSchema.safeParse(next);
      if (!valid.success || valid.data.ticket !== ticket) {
        throw new Failure("internal", `refused to write an invalid State for #${ticket}: ${valid.success ? `names ticket ${valid.data.ticket}` : valid.error.message}`);
      }
      const text = serializeState(valid.data);
      const sha = await writeBlob(this.ctx, text);
      const changed = files.get(path) !== sha;
      files.set(path, sha);
      return { changed, message: `Ticket #${ticket}: ${valid.data.state} (run ${valid.data.runId})`, value: valid.data };
    });
  }

  /** Copies transcripts to ticket-<n>/<runId>/. Files missing on disk are reported, not fatal. */
  async keepTranscripts(ticket: number, runId: string, files: TranscriptFile[]): Promise<{ path: string; kept: string[]; missing: string[] }> {
    const dir = transcriptDir(ticket, runId);
    const loaded = await loadTranscripts(files, (t) => this.ctx.git.redact(t));
    const blobs: [string, string][] = [];
    for (const f of loaded.found) blobs.push([`${dir}${f.name}`, await writeBlob(this.ctx, f.content)]);
    await transact(this.ctx, STATE_BRANCH, { retries: this.retries, keepHistory: false }, async (tree) => {
      let changed = false;
      for (const [path, sha] of blobs) {
        changed ||= tree.get(path) !== sha;
        tree.set(path, sha);
      }
      return { changed, message: `Ticket #${ticket}: transcripts of run ${runId}`, value: undefined };
    });
    return { path: dir, kept: loaded.found.map((f) => f.name), missing: loaded.missing };
  }

  private async current(files: TreeFiles, ticket: number): Promise<StateFile | null> {
    const path = stateFilePath(ticket);
    const sha = files.get(path);
    if (!sha) return null;
    const blob = (await readBlobs(this.ctx, [sha])).get(sha) ?? "";
    const parsed = parseStateFile(path, ticket, blob);
    if (parsed.ok) return parsed.state;
    const by = parsed.writtenBy ? `, written by ${parsed.writtenBy}` : "";
    throw new Failure("invalid-record", `#${ticket} has a State file this version cannot use${by}: ${parsed.reason}. It is left as it is on ${STATE_BRANCH}.`);
  }
}
