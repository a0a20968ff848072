/**
 * VS Code for the demo: code-server (the real VS Code, workbench in the browser) from the cache
 * that scripts/install-code-server.sh fills, with this product's extension loaded from its
 * development path, the demo's settings, and the sandbox in the environment its extension host
 * inherits. Started in its own process group and stopped through it.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { Refusal } from "../core/errors";
import type { DemoChild, DemoChildren } from "./children";
import type { DemoPaths } from "./folder";

export const CODE_SERVER_VERSION = "4.100.3";

export function codeServerBin(env: NodeJS.ProcessEnv): string {
  const cache = env.TICKET_RUNNER_CACHE || join(homedir(), ".cache", "ticket-runner");
  return join(cache, `code-server-${CODE_SERVER_VERSION}`, "node_modules", ".bin", "code-server");
}

/** Installs code-server with the product's script when it is missing (about 90 s, once). */
export function ensureCodeServer(productRoot: string, env: NodeJS.ProcessEnv, say: (line: string) => void): string {
  const bin = codeServerBin(env);
  if (existsSync(bin)) return bin;
  const script = join(productRoot, "scripts", "install-code-server.sh");
  if (!existsSync(script)) {
    throw new Refusal(
      "bad-config",
      `code-server ${CODE_SERVER_VERSION} is not installed at ${bin}, and this copy of Ticket Runner has no scripts/install-code-server.sh to install it. Run the demo from a clone of the repository (\`npm run demo\`), or use the terminal demo: \`ticket-runner demo --headless\`.`,
    );
  }
  say(`Installing code-server ${CODE_SERVER_VERSION} into ${bin.split("/node_modules/")[0]} (once, about 90 s)…`);
  const r = spawnSync("bash", [script], { env, stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0 || !existsSync(bin)) {
    throw new Refusal(
      "bad-config",
      `Installing code-server failed (exit ${r.status}); its output is above. On Debian, as root: \`apt-get install -y libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep\`, then \`bash ${script}\`. The terminal demo needs none of this: \`ticket-runner demo --headless\`.`,
    );
  }
  return bin;
}

/** The user settings the demo needs; anything else the person set in that file is kept. */
function writeDemoSettings(paths: DemoPaths): void {
  const file = join(paths.vscodeUserData, "User", "settings.json");
  mkdirSync(join(paths.vscodeUserData, "User"), { recursive: true });
  let existing: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) existing = parsed as Record<string, unknown>;
  } catch {
    // missing or hand-edited into something unparsable: start from the demo's own
  }
  const demo = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    // Workspace Trust stays on (an earlier demo wrote false here): VS Code asks once whether to trust
    // the demo's folder, which the demo made; until then the board is read-only (ADR 0232).
    "security.workspace.trust.enabled": true,
    "telemetry.telemetryLevel": "off",
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "update.mode": "none",
    // Worktrees come and go during a Run; the Git view would rescan each one.
    "git.enabled": false,
    "ticketRunner.agent": "demo",
    "ticketRunner.runRoot": paths.runRoot,
    "ticketRunner.refreshIntervalSeconds": 5,
  };
  writeFileSync(file, JSON.stringify({ ...existing, ...demo }, null, 2) + "\n");
}

export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface StartCodeServerInput {
  bin: string;
  children: DemoChildren;
  paths: DemoPaths;
  env: NodeJS.ProcessEnv;
  port: number;
  productRoot: string;
  timeoutMs?: number;
}

export interface DemoCodeServer {
  child: DemoChild;
  port: number;
  /** code-server's login password: random per start, printed with the URL, never on argv. */
  password: string;
  /** The URL to open: the workspace with the clone, and the extension from its development path. */
  url: string;
  logFile: string;
}

export async function startDemoCodeServer(input: StartCodeServerInput): Promise<DemoCodeServer> {
  const { paths, port } = input;
  mkdirSync(paths.vscodeExtensions, { recursive: true });
  mkdirSync(paths.logs, { recursive: true });
  writeDemoSettings(paths);
  const logFile = join(paths.logs, "code-server.log");
  const out = openSync(logFile, "a");
  // Never --auth none: any local process or web page could drive VS Code with the person's token.
  const password = randomBytes(18).toString("base64url");
  const args = [
    "--auth",
    "password",
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--extensions-dir",
    paths.vscodeExtensions,
    "--user-data-dir",
    paths.vscodeUserData,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-getting-started-override",
  ];
  let child: DemoChild;
  try {
    // code-server reads PASSWORD and removes it from the environment its extension host inherits.
    child = await input.children.spawn("code-server", input.bin, args, {
      cwd: paths.root,
      env: { ...input.env, PASSWORD: password },
      stdio: ["ignore", out, out],
      group: true,
    });
  } finally {
    closeSync(out);
  }
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (input.timeoutMs ?? 60_000);
  for (;;) {
    if (!child.isRunning()) throw new Error(`code-server exited during start-up; see ${logFile}`);
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await input.children.stop(child, "SIGTERM", 5_000);
      throw new Error(`code-server did not answer ${base}/healthz in time; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const payload = [["extensionDevelopmentPath", `vscode-remote://127.0.0.1:${port}${input.productRoot}`]];
  const url = `${base}/?workspace=${encodeURIComponent(paths.workspaceFile)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return { child, port, password, url, logFile };
}
