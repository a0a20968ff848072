/**
 * Transcripts kept on a Hand-off: each Stage's .command and .transcript.jsonl (retries too) and the
 * Run's version.txt go to ticket-<n>/<runId>/ on the State branch, where a person on any machine
 * can read them after the Host is gone. They go away with the ticket's State file.
 */
import { readFile } from "node:fs/promises";
import { Failure } from "../../core/errors";
import { scrubSecrets, scrubTranscript } from "../secret-scan";

export interface TranscriptFile {
  /** Path under ticket-<n>/<runId>/, e.g. `implement.transcript.jsonl` or `retry/implement-2.command`. */
  name: string;
  /** Where it is on this Host. */
  path: string;
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,120}$/;

export function transcriptDir(ticket: number, runId: string): string {
  if (!SEGMENT.test(runId)) throw new Failure("internal", `run id ${JSON.stringify(runId)} cannot name a directory on the State branch`);
  return `ticket-${ticket}/${runId}/`;
}

/** The prefix every kept file of a ticket shares; removing the State removes everything under it. */
export function ticketTranscriptPrefix(ticket: number): string {
  return `ticket-${ticket}/`;
}

/** Refuses names that could climb out of the run's directory or confuse git. */
export function checkTranscriptName(name: string): string {
  const segments = name.split("/");
  if (segments.length > 4 || segments.some((s) => !SEGMENT.test(s) || s === "." || s === "..")) {
    throw new Failure("internal", `transcript name ${JSON.stringify(name)} is not a plain relative path`);
  }
  return name;
}

export interface LoadedTranscripts {
  found: { name: string; content: string }[];
  missing: string[];
}

/**
 * Reads the files, secrets removed on the way (the Run's tokens and everything secretlint knows, ADR
 * 0160): a transcript on the remote is readable by everyone who can clone the Target. A `.jsonl`
 * transcript that had any says so in a last `ticket_runner_redaction` line.
 */
export async function loadTranscripts(files: TranscriptFile[], env: Record<string, string | undefined>): Promise<LoadedTranscripts> {
  const found: LoadedTranscripts["found"] = [];
  const missing: string[] = [];
  for (const file of files) {
    const name = checkTranscriptName(file.name);
    try {
      const raw = await readFile(file.path, "utf8");
      const scrubbed = name.endsWith(".jsonl") ? await scrubTranscript(raw, env) : await scrubSecrets(raw, env);
      found.push({ name, content: scrubbed.text });
    } catch {
      missing.push(name);
    }
  }
  return { found, missing };
}
