import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { toAgentEvents } from "../../adapters/agent/event-mapper";
import { parseStreamLine } from "../../adapters/agent/stream-events";
import { TranscriptFormatter } from "../../core/text/transcript-format";

/** Longest replay, in lines: a transcript for reading, not the whole log (that stays on disk). */
const MAX_LINES = 20_000;

/**
 * A ticket's transcript from the newest run on this Host that has one
 * (`<clone>/.ticket-runner/runs/<runId>/<n>/*.transcript.jsonl`), for Show Transcript on a ticket
 * this window did not run: after a reload (a kill), or a Run from the CLI. Null when there is none.
 */
export async function replayTranscript(root: string, ticket: number): Promise<{ dir: string; lines: string[] } | null> {
  const runs = join(root, ".ticket-runner", "runs");
  const ids = (await readdir(runs).catch(() => [] as string[])).sort().reverse();
  for (const id of ids) {
    const dir = join(runs, id, String(ticket));
    const files = await transcriptFiles(dir);
    if (files.length === 0) continue;
    const lines: string[] = [`Replayed from ${dir} (run ${id}).`];
    for (const file of files) {
      lines.push("", `── #${ticket} ${file.name.replace(/\.transcript\.jsonl$/, "")} `.padEnd(60, "─"));
      const formatter = new TranscriptFormatter();
      const text = await readFile(file.path, "utf8").catch(() => "");
      let n = 0;
      for (const raw of text.split("\n")) {
        n += 1;
        if (!raw.trim()) continue;
        for (const event of toAgentEvents(parseStreamLine(raw, n), root)) lines.push(...formatter.format(event));
        if (lines.length > MAX_LINES) {
          lines.push(`… (cut at ${MAX_LINES} lines; the whole transcript is ${file.path})`);
          return { dir, lines };
        }
      }
    }
    return { dir, lines };
  }
  return null;
}

async function transcriptFiles(dir: string): Promise<{ name: string; path: string }[]> {
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const found = await Promise.all(
    names
      .filter((n) => n.endsWith(".transcript.jsonl"))
      .map(async (name) => ({ name, path: join(dir, name), at: (await stat(join(dir, name)).catch(() => null))?.mtimeMs ?? 0 })),
  );
  return found.sort((a, b) => a.at - b.at);
}
