/** The shape every CLI command has. One file per command under src/cli/commands/; its name and summary are its row in command-table.ts. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CliCommand {
  usage: string;
  /** Returns the exit code: 0 done, 1 failed (or handed off, for `run`), 2 refused. */
  run(argv: string[], io: CliIo): Promise<number>;
}
