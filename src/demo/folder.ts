/**
 * The demo's one folder: everything the demo makes lives under it, so a re-run resumes and
 * `--fresh` can start over by removing one thing.
 *
 *   <dir>/demo.json      what this folder is, the ports to reuse, the processes the demo started
 *   <dir>/.ticket-runner-demo  the random id the demo wrote when it made the folder (--fresh's proof)
 *   <dir>/sandbox/       the sandbox's data (repositories, issues, users)
 *   <dir>/shop/          the clone of demo/shop: the Target (its worktrees under .worktrees/)
 *   <dir>/runs/          this Host's run root (local claims, Stage logs of the VS Code Run)
 *   <dir>/vscode/        code-server's user data and extensions folders
 *   <dir>/logs/          the sandbox's and code-server's output
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { Refusal } from "../core/errors";

export const DEMO_DIR_ENV = "TICKET_RUNNER_DEMO_DIR";

/** `group`: the child leads its own process group, and is stopped through it (code-server's helpers too). */
const childSchema = z.object({ what: z.string(), pid: z.number().int().positive(), startTime: z.string().nullable(), group: z.boolean() }).strict();
export type ChildRecord = z.infer<typeof childSchema>;

const stateSchema = z
  .object({
    kind: z.literal("ticket-runner-demo"),
    /** The folder's random id, also in the marker file; absent in folders an older demo made (given one on their next start). */
    id: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .optional(),
    createdAt: z.string(),
    sandboxPort: z.number().int().min(0).max(65535).nullable().default(null),
    codeServerPort: z.number().int().min(0).max(65535).nullable().default(null),
    /** The demo process holding the folder, and the processes it started (for a clean-up after a SIGKILL). */
    owner: z.object({ pid: z.number().int().positive(), startTime: z.string().nullable() }).strict().nullable().default(null),
    children: z.array(childSchema).default([]),
  })
  .strict();
export type DemoState = z.infer<typeof stateSchema>;

export interface DemoPaths {
  root: string;
  stateFile: string;
  /** `.ticket-runner-demo`: `ticket-runner-demo <id>`, written with the folder's first record. */
  marker: string;
  sandboxData: string;
  clone: string;
  workspaceFile: string;
  runRoot: string;
  vscodeUserData: string;
  vscodeExtensions: string;
  logs: string;
}

/** How the person started the demo, so every hint names a command they can paste. */
export function demoCommandLine(args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const rest = args.join(" ");
  if (env.npm_lifecycle_event === "demo") return rest ? `npm run demo -- ${rest}` : "npm run demo";
  return rest ? `ticket-runner demo ${rest}` : "ticket-runner demo";
}

export function defaultDemoDir(env: NodeJS.ProcessEnv): string {
  const fromEnv = env[DEMO_DIR_ENV]?.trim();
  return resolve(fromEnv || join(homedir(), ".ticket-runner", "demo"));
}

export function demoPaths(root: string): DemoPaths {
  return {
    root,
    stateFile: join(root, "demo.json"),
    marker: join(root, ".ticket-runner-demo"),
    sandboxData: join(root, "sandbox"),
    clone: join(root, "shop"),
    workspaceFile: join(root, "shop.code-workspace"),
    runRoot: join(root, "runs"),
    vscodeUserData: join(root, "vscode", "user-data"),
    vscodeExtensions: join(root, "vscode", "extensions"),
    logs: join(root, "logs"),
  };
}

/** The folder's record, or null for a folder the demo has not used yet. A foreign or broken one is refused. */
export function readDemoState(paths: DemoPaths): DemoState | null {
  if (!existsSync(paths.stateFile)) {
    if (existsSync(paths.root) && readdirSync(paths.root).length > 0) throw notADemoFolder(paths.root, "it is not empty and has no demo.json");
    return null;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(paths.stateFile, "utf8"));
  } catch (error) {
    throw new Refusal(
      "bad-input",
      `${paths.stateFile} is not valid JSON (${(error as Error).message}). It is the demo's record of that folder; start over with \`${demoCommandLine(["--fresh"])}\`.`,
      { path: paths.stateFile, next: demoCommandLine(["--fresh"]) },
    );
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Refusal(
      "bad-input",
      `${paths.stateFile} is not a demo record this version understands (${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}). Start over with \`${demoCommandLine(["--fresh"])}\`.`,
      { path: paths.stateFile, next: demoCommandLine(["--fresh"]) },
    );
  }
  return parsed.data;
}

export function newDemoId(): string {
  return randomBytes(16).toString("hex");
}

export function newDemoState(now: Date, id = newDemoId()): DemoState {
  return { kind: "ticket-runner-demo", id, createdAt: now.toISOString(), sandboxPort: null, codeServerPort: null, owner: null, children: [] };
}

const MARKER_RE = /^ticket-runner-demo ([0-9a-f]{32})\n?$/;

/**
 * Written whole through a temp file and a rename, so a kill never leaves half a record. The
 * marker goes with the first record that has an id: a state only reaches here when the demo made
 * the folder, or read it back as its own record.
 */
export function writeDemoState(paths: DemoPaths, state: DemoState): void {
  mkdirSync(paths.root, { recursive: true, mode: 0o700 });
  if (state.id && !existsSync(paths.marker)) writeFileSync(paths.marker, `ticket-runner-demo ${state.id}\n`, { mode: 0o600, flag: "wx" });
  const tmp = `${paths.stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + "\n");
  renameSync(tmp, paths.stateFile);
}

function markerId(paths: DemoPaths): string | null {
  try {
    return MARKER_RE.exec(readFileSync(paths.marker, "utf8"))?.[1] ?? null;
  } catch {
    return null;
  }
}

function recordId(paths: DemoPaths): string | null | "unreadable" {
  try {
    const parsed = stateSchema.safeParse(JSON.parse(readFileSync(paths.stateFile, "utf8")));
    return parsed.success ? (parsed.data.id ?? null) : "unreadable";
  } catch {
    return "unreadable";
  }
}

/**
 * `--fresh`: removes the folder, but only one the demo made itself: an empty folder, or one whose
 * marker holds the random id the demo wrote there, matching its demo.json when that is readable.
 * A file named demo.json proves nothing (a project may have one), so `--data <a project>` never
 * deletes a project.
 */
export function wipeDemoFolder(paths: DemoPaths): void {
  if (!existsSync(paths.root)) return;
  if (readdirSync(paths.root).length === 0) return rmSync(paths.root, { recursive: true, force: true });
  const id = markerId(paths);
  if (!id) throw notMadeByDemo(paths, `it has no ${paths.marker} with the id the demo writes when it makes its folder`);
  const recorded = existsSync(paths.stateFile) ? recordId(paths) : "unreadable";
  if (recorded !== "unreadable" && recorded !== id)
    throw notMadeByDemo(paths, `its demo.json names ${recorded ? `another folder id (${recorded})` : "no folder id"}, not the marker's ${id}`);
  rmSync(paths.root, { recursive: true, force: true });
}

function notMadeByDemo(paths: DemoPaths, why: string): Refusal {
  const next = demoCommandLine(["--fresh", "--data", "<a new or empty folder>"]);
  return new Refusal(
    "bad-input",
    `--fresh did not delete ${paths.root}: ${why}, so nothing shows the demo made it. Nothing was deleted. Start over in a new folder: \`${next}\`; if it is an old demo folder you no longer want, look inside and remove it yourself (\`ls -a ${paths.root}\`).`,
    { path: paths.root, next },
  );
}

function notADemoFolder(root: string, why: string): Refusal {
  const next = demoCommandLine(["--data", "<a new or empty folder>"]);
  return new Refusal("bad-input", `${root} is not a Ticket Runner demo folder: ${why}. Choose another folder: \`${next}\`.`, { path: root, next });
}
