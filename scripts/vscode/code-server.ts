// Starts and stops code-server (the real VS Code, workbench in the browser) for tests and demos.
// Isolated: each start gets its own user-data and extensions folders and a free port.
// Stopped by the process group id it started, never by name.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { freePort } from "../../src/demo/code-server";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

export const CODE_SERVER_VERSION = "4.100.3";

export function codeServerBin(): string {
  const cache = process.env["TICKET_RUNNER_CACHE"] ?? join(homedir(), ".cache", "ticket-runner");
  return join(cache, `code-server-${CODE_SERVER_VERSION}`, "node_modules", ".bin", "code-server");
}

export interface StartCodeServerOptions {
  /** The folder the workbench opens. Passed in the URL by callers, so optional here. */
  folder?: string;
  /** Added to code-server's environment, which the extension host inherits. */
  env?: Record<string, string>;
  /** Removed from the inherited environment (unless `env` sets them again), e.g. stray tokens. */
  unsetEnv?: readonly string[];
  extensionsDir?: string;
  userDataDir?: string;
  /** Merged over the defaults written to <user-data>/User/settings.json. */
  settings?: Record<string, unknown>;
  /** Extension folders (unpacked, as in a .vsix's extension/) registered in the extensions folder before start. */
  installFolders?: readonly string[];
  /** Default: a free port. */
  port?: number;
  /** How long to wait for /healthz. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Keep VS Code's Workspace Trust on (default off for tests of what a trusted folder does). A
   * fresh browser has trusted nothing, so the folder opens in Restricted Mode; no startup prompt.
   */
  workspaceTrust?: boolean;
}

export interface CodeServer {
  readonly pid: number;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** code-server's login password, random per start (openCodeServerPage in chromium.ts signs in with it). */
  readonly password: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  /** code-server's stdout+stderr. */
  readonly logFile: string;
  stop(): Promise<void>;
}

const DEFAULT_SETTINGS = {
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "git.enabled": false,
};

export function requireCodeServer(): string {
  const bin = codeServerBin();
  if (!existsSync(bin)) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} is not installed at ${bin}. Run: npm run code-server:install`);
  }
  return bin;
}

// Groups started by this process. If the launcher is interrupted (Ctrl-C, SIGTERM from CI) its
// `finally` blocks never run, and a detached code-server would outlive it; this ends them on exit.
const started = new Set<number>();
let exitHooked = false;

function track(pid: number): void {
  started.add(pid);
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    for (const p of started) {
      try {
        process.kill(-p, "SIGTERM");
      } catch {
        // already gone
      }
    }
  });
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => process.exit(code));
  }
}

export { freePort };

export async function startCodeServer(opts: StartCodeServerOptions = {}): Promise<CodeServer> {
  const bin = requireCodeServer();
  const base = mkdtempSync(join(tmpdir(), "tr-code-server-"));
  const userDataDir = opts.userDataDir ?? join(base, "user-data");
  const extensionsDir = opts.extensionsDir ?? join(base, "extensions");
  mkdirSync(join(userDataDir, "User"), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  if (opts.installFolders?.length) registerFolders(opts.installFolders, extensionsDir);
  const trust = opts.workspaceTrust ? { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" } : {};
  writeFileSync(join(userDataDir, "User", "settings.json"), JSON.stringify({ ...DEFAULT_SETTINGS, ...trust, ...opts.settings }, null, 2));
  const logFile = join(base, "code-server.log");
  const port = opts.port ?? (await freePort());
  // Never --auth none: anything on this machine could drive a workbench with the extension and its token.
  const password = randomBytes(18).toString("base64url");
  const args = [
    "--auth",
    "password",
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--extensions-dir",
    extensionsDir,
    "--user-data-dir",
    userDataDir,
    "--disable-telemetry",
    "--disable-update-check",
    ...(opts.workspaceTrust ? [] : ["--disable-workspace-trust"]),
    "--disable-getting-started-override",
    ...(opts.folder ? [opts.folder] : []),
  ];
  const out = openSync(logFile, "a");
  // detached: its own process group, so stop() can end code-server and every child it spawned
  // (server, extension host, file watcher) by that one id.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of opts.unsetEnv ?? []) delete env[name];
  // code-server reads PASSWORD and removes it from the environment its children inherit.
  const child = spawn(bin, args, { env: { ...env, ...opts.env, PASSWORD: password }, stdio: ["ignore", out, out], detached: true });
  closeSync(out);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`code-server did not start (see ${logFile})`);
  child.unref();
  track(pid);
  let exited = false;
  child.once("exit", () => (exited = true));

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await stopProcessGroup(pid);
    if (!opts.userDataDir && !opts.extensionsDir && process.env["TICKET_RUNNER_KEEP_TEMP"] !== "1") rmSync(base, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, opts.startTimeoutMs ?? 60_000, () => exited, logFile);
  } catch (e) {
    await stopProcessGroup(pid);
    throw e;
  }
  return { pid, port, url, password, userDataDir, extensionsDir, logFile, stop };
}

async function waitForHealth(url: string, timeoutMs: number, hasExited: () => boolean, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited()) throw new Error(`code-server exited during start-up:\n${tail(logFile)}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`code-server did not answer ${url}/healthz within ${timeoutMs} ms:\n${tail(logFile)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the process group, then SIGKILL if it has not gone within 5 s. */
export async function stopProcessGroup(pid: number, graceMs = 5_000): Promise<void> {
  started.delete(pid);
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone between the check and the kill
    }
  }
}

/**
 * Copies unpacked extensions into an extensions folder and lists them in its extensions.json, the
 * index VS Code 1.100 reads (what --install-extension writes), so no .vsix has to be packed.
 */
function registerFolders(folders: readonly string[], extensionsDir: string): void {
  const index = folders.map((folder) => {
    const pkg = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { publisher: string; name: string; version: string };
    const id = `${pkg.publisher}.${pkg.name}`;
    const relativeLocation = `${id}-${pkg.version}`;
    const location = join(extensionsDir, relativeLocation);
    cpSync(folder, location, { recursive: true });
    return {
      identifier: { id },
      version: pkg.version,
      location: { $mid: 1, path: location, scheme: "file" },
      relativeLocation,
      metadata: { installedTimestamp: Date.now() },
    };
  });
  writeFileSync(join(extensionsDir, "extensions.json"), JSON.stringify(index));
}

/** Installs a .vsix into an extensions folder with code-server's own CLI; returns its output. */
export function installVsix(vsix: string, extensionsDir: string, userDataDir: string): string {
  const r = spawnSync(requireCodeServer(), ["--extensions-dir", extensionsDir, "--user-data-dir", userDataDir, "--install-extension", vsix], {
    encoding: "utf8",
    timeout: 120_000,
  });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (status ${r.status}):\n${output}`);
  return output;
}

/** `code-server --list-extensions --show-versions` for an extensions folder. */
export function listExtensions(extensionsDir: string, userDataDir: string): string[] {
  const r = spawnSync(requireCodeServer(), ["--extensions-dir", extensionsDir, "--user-data-dir", userDataDir, "--list-extensions", "--show-versions"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`code-server --list-extensions failed:\n${r.stdout}${r.stderr}`);
  return r.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}
