/**
 * The terminal demo: `ticket-runner board`, `ticket-runner run`, `ticket-runner board`, each the
 * product's own command as its own process in the clone, so the demo shows exactly what a person
 * gets (the Run's live display, one line per Lane on a terminal, and its summary).
 */
import { z } from "zod";
import type { CliIo } from "../cli/command";
import { DEMO_OWNER, DEMO_REPO } from "../sandbox/seeds/demo-project";
import { demoCommandLine } from "./folder";
import type { DemoSession } from "./session";

export interface HeadlessInput {
  session: DemoSession;
  io: CliIo;
  cliJs: string;
  env: NodeJS.ProcessEnv;
  clone: string;
  /** Extra arguments of `ticket-runner run` (e.g. `--agent codex`). */
  runArgs?: string[];
}

async function command(input: HeadlessInput, what: string, args: string[], foreground: boolean): Promise<number> {
  const child = await input.session.children.spawn(what, process.execPath, [input.cliJs, ...args], {
    cwd: input.clone,
    env: input.env,
    stdio: ["ignore", "inherit", "inherit"],
    group: false,
  });
  if (foreground) input.session.setForeground(child);
  try {
    return await child.exited;
  } finally {
    if (foreground) input.session.setForeground(null);
  }
}

function heading(io: CliIo, text: string): void {
  io.out("");
  io.out(`── ${text} ${"─".repeat(Math.max(3, 72 - text.length))}`);
}

/** Returns the Run's exit code (1 when something was handed off), or 130 when Ctrl+C killed it. */
export async function runHeadless(input: HeadlessInput): Promise<number> {
  const { io, session } = input;
  heading(io, "The board before the Run");
  await command(input, "board", ["board"], false);
  if (session.interrupted) return 130;

  heading(io, "The Run: `ticket-runner run` in the clone");
  const code = await command(input, "Run", ["run", ...(input.runArgs ?? [])], true);
  if (session.interrupted === "SIGINT") {
    io.out("");
    io.out("Killed by Ctrl+C: the tickets the Run held keep their claims, and their work as last pushed.");
    io.out(`Run \`${demoCommandLine(["--headless"])}\` again to resume them.`);
    return 130;
  }

  heading(io, "The board after the Run");
  await command(input, "board", ["board"], false);
  io.out("");
  if (code === 1) io.out("Exit code 1: a ticket was handed off to a person (ready-for-human, with a comment and a draft PR), as the demo intends.");
  const left = await readyLeft(input.env);
  if (left === null) io.out(`Run again to resume: \`${demoCommandLine(["--headless"])}\`. Start over: \`${demoCommandLine(["--headless", "--fresh"])}\`.`);
  else if (left > 0)
    io.out(`${left} ticket(s) wait in ready-for-agent, a released one with its progress kept. The next Run resumes: \`${demoCommandLine(["--headless"])}\`.`);
  else io.out(`No ticket is left for an agent. Start over: \`${demoCommandLine(["--headless", "--fresh"])}\`.`);
  return code;
}

const issuesSchema = z.array(z.object({ number: z.number(), pull_request: z.unknown().optional() }).passthrough());

/** Open ready-for-agent tickets on demo/shop, or null when the sandbox cannot say. */
async function readyLeft(env: NodeJS.ProcessEnv): Promise<number | null> {
  try {
    const res = await fetch(`${env.TICKET_RUNNER_API_URL}/repos/${DEMO_OWNER}/${DEMO_REPO}/issues?state=open&labels=ready-for-agent&per_page=100`, {
      headers: { authorization: `Bearer ${env.TICKET_RUNNER_TOKEN}` },
    });
    if (!res.ok) return null;
    return issuesSchema.parse(await res.json()).filter((i) => i.pull_request === undefined).length;
  } catch {
    return null;
  }
}
