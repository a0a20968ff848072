/**
 * Which files of a Ticket's logs a Hand-off keeps on the remote: each Stage's `.command` and
 * `.transcript.jsonl` (and `.prompt.txt`; the retries' too, under retry/) and the Run's version.txt,
 * which is written here too. The Workspace adapters reach these files through this module; the
 * core asks the Workspace port (keptLogFiles, writeRunVersion).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { runLogDir, ticketLogDir } from "../core/run/naming";

export interface KeptFile {
  name: string;
  path: string;
}

/** `.prompt.txt` goes too: a long prompt lives there and `.command` reads it back. */
const KEPT = [".command", ".transcript.jsonl", ".prompt.txt"];

function walk(dir: string, prefix: string, out: KeptFile[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, e.name);
    const name = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) walk(full, name, out);
    else if (KEPT.some((suffix) => e.name.endsWith(suffix))) out.push({ name, path: full });
  }
}

export function transcriptFiles(root: string, runId: string, ticket: number): KeptFile[] {
  const out: KeptFile[] = [];
  walk(ticketLogDir(root, runId, ticket), "", out);
  if (out.length === 0) return out;
  const version = path.join(runLogDir(root, runId), "version.txt");
  if (fs.existsSync(version)) out.push({ name: "version.txt", path: version });
  return out;
}

export function writeVersionFile(root: string, runId: string, version: string): void {
  const dir = runLogDir(root, runId);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "version.txt"), `${version}\n`);
}
