/**
 * What the demo agent remembers between sessions of one ticket ("rate-limit-once", the teammate
 * push of "conflict"), so a resumed Run behaves differently from the first.
 *
 * Kept in `$TICKET_RUNNER_DEMO_STATE/<ticket>.json` or, by default, in
 * `<git common dir>/ticket-runner-demo/<ticket>.json`: shared by every worktree of the clone and
 * never committed. A second clone (another Host) has its own memory unless both point
 * TICKET_RUNNER_DEMO_STATE at one directory.
 */
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { gitText } from "./git";

const memorySchema = z
  .object({
    rateLimited: z.array(z.string()).default([]),
    teammatePushed: z.boolean().default(false),
    sessions: z.number().int().nonnegative().default(0),
  })
  .passthrough();

export type DemoMemory = z.infer<typeof memorySchema>;

export async function stateDir(cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.TICKET_RUNNER_DEMO_STATE) return env.TICKET_RUNNER_DEMO_STATE;
  const common = await gitText(cwd, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  return join(common, "ticket-runner-demo");
}

export class DemoState {
  private constructor(
    private readonly file: string,
    readonly memory: DemoMemory,
  ) {}

  static async open(dir: string, ticketKey: string): Promise<DemoState> {
    const file = join(dir, `${ticketKey}.json`);
    let memory: DemoMemory = memorySchema.parse({});
    try {
      const parsed = memorySchema.safeParse(JSON.parse(await fsp.readFile(file, "utf8")));
      // An unreadable memory is forgotten rather than fatal: it only steers the demo's script.
      if (parsed.success) memory = parsed.data;
    } catch {
      // no memory yet
    }
    return new DemoState(file, memory);
  }

  async save(): Promise<void> {
    await fsp.mkdir(join(this.file, ".."), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fsp.writeFile(tmp, JSON.stringify(this.memory, null, 2) + "\n");
    await fsp.rename(tmp, this.file);
  }
}
