/**
 * A Stage's log files, written live while the agent runs:
 *   <logName>.command           the argv, shell-quoted for a human to read or re-run (redacted)
 *   <logName>.prompt.txt        the prompt, when it is too long to read inline in .command
 *   <logName>.stdout            every stdout line (redacted), oversize lines replaced by a note
 *   <logName>.stderr            stderr (redacted)
 *   <logName>.transcript.jsonl  every valid JSON event line (redacted), then one `ticket_runner_outcome` line
 */
import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import type { WriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { redactSecrets } from "../../core/redact";

/** Prompts longer than this go to `.prompt.txt` and `.command` reads them with `$(cat …)`. */
const INLINE_PROMPT_MAX = 4096;

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX shell quoting: safe words stay bare, everything else goes in single quotes. */
export function shellQuote(arg: string): string {
  if (arg.length > 0 && SAFE_WORD.test(arg)) return arg;
  return "'" + arg.replace(/'/g, `'\\''`) + "'";
}

export interface StageLogPaths {
  command: string;
  stdout: string;
  stderr: string;
  transcript: string;
  prompt?: string;
}

export interface CommandFileInput {
  argv: string[];
  /** Index in argv of the prompt, or -1 when it goes over stdin. */
  promptIndex: number;
  prompt: string;
  cwd: string;
  /** Variables the runner set or changed, shown before the command. */
  shownEnv: Record<string, string>;
  header: string;
  promptViaStdin: boolean;
}

export class StageLogs {
  readonly paths: StageLogPaths;
  private readonly stdout: WriteStream;
  private readonly stderr: WriteStream;
  private readonly transcript: WriteStream;

  constructor(
    logDir: string,
    logName: string,
    private readonly secretsEnv: NodeJS.ProcessEnv,
  ) {
    const stem = join(logDir, logName);
    mkdirSync(dirname(stem), { recursive: true });
    this.paths = {
      command: `${stem}.command`,
      stdout: `${stem}.stdout`,
      stderr: `${stem}.stderr`,
      transcript: `${stem}.transcript.jsonl`,
    };
    this.stdout = createWriteStream(this.paths.stdout);
    this.stderr = createWriteStream(this.paths.stderr);
    this.transcript = createWriteStream(this.paths.transcript);
    for (const s of [this.stdout, this.stderr, this.transcript]) s.on("error", () => undefined); // a full disk must not crash the Run
  }

  redact(text: string): string {
    return redactSecrets(text, this.secretsEnv);
  }

  /** Writes `.command` (and `.prompt.txt` when the prompt is long). Returns the command line shown. */
  writeCommand(input: CommandFileInput): string {
    const longPrompt = input.prompt.length > INLINE_PROMPT_MAX || input.promptViaStdin;
    if (longPrompt) {
      this.paths.prompt = this.paths.command.replace(/\.command$/, ".prompt.txt");
      writeFileSync(this.paths.prompt, this.redact(input.prompt));
    }
    const words = input.argv.map((a, i) => (i === input.promptIndex && longPrompt ? `"$(cat ${shellQuote(this.paths.prompt!)})"` : shellQuote(a)));
    const env = Object.entries(input.shownEnv).map(([k, v]) => `${k}=${shellQuote(v)}`);
    const line = [...env, ...words].join(" ") + (input.promptViaStdin ? ` < ${shellQuote(this.paths.prompt!)}` : "");
    const text = [`# ${input.header}`, `cd ${shellQuote(input.cwd)}`, line, ""].join("\n");
    const redacted = this.redact(text);
    writeFileSync(this.paths.command, redacted);
    return this.redact(line);
  }

  stdoutLine(text: string): void {
    this.stdout.write(this.redact(text) + "\n");
  }

  stderrLine(text: string): void {
    this.stderr.write(this.redact(text) + "\n");
  }

  transcriptLine(jsonText: string): void {
    this.transcript.write(this.redact(jsonText) + "\n");
  }

  transcriptRecord(record: object): void {
    this.transcript.write(this.redact(JSON.stringify(record)) + "\n");
  }

  /** Resolves once every byte is on disk (or the file could not be written). */
  async close(): Promise<void> {
    await Promise.all(
      [this.stdout, this.stderr, this.transcript].map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.closed || s.destroyed) return resolve();
            s.once("error", () => resolve());
            s.end(() => resolve());
          }),
      ),
    );
  }
}
