/**
 * startSandbox(): a local GitHub-compatible server on 127.0.0.1 (REST at the root like
 * api.github.com, GraphQL at /graphql, git smart HTTP at /{owner}/{repo}.git, admin at /_sandbox/).
 */
import { promises as fsp } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { SandboxAdmin } from "./admin-client";
import { App } from "./app";
import { attachCi } from "./ci";
import { clearLeftLocks } from "./left-locks";
import { ensureAdminUser } from "./repos-admin";
import { buildRouter } from "./routes";
import { resetSpool } from "./spool";
import { applySeed } from "./seeds/apply";
import { createHandler } from "./server";
import { Store } from "./store";

export interface StartSandboxOptions {
  /** 0 (the default) picks any free port. */
  port?: number;
  /** Keep repositories and state here across restarts; without it a temp folder is used and removed on stop. */
  dataDir?: string;
  seed?: "demo" | "none";
  quiet?: boolean;
  /** Where the sandbox says what it mended at start (a killed sandbox's lock files); stderr unless quiet when not given. */
  notes?: (line: string) => void;
}

export interface SandboxHandle {
  apiUrl: string;
  gitUrl(owner: string, repo: string): string;
  adminToken: string;
  admin: SandboxAdmin;
  /** The folder the admin API's `fromDir` copies from, and nothing else (ADR 0222). */
  seedsDir: string;
  stop(): Promise<void>;
}

export async function startSandbox(opts: StartSandboxOptions = {}): Promise<SandboxHandle> {
  const persistent = !!opts.dataDir;
  const root = opts.dataDir ? path.resolve(opts.dataDir) : await fsp.mkdtemp(path.join(os.tmpdir(), "ticket-runner-sandbox-"));
  await privateDataDir(root);
  const store = new Store(persistent ? root : null);
  await store.load();
  const app = new App(store, path.join(root, "repos"), path.join(root, "spool"), path.join(root, "seeds"));
  await resetSpool(app.spoolDir);
  await clearLocksLeft(app, opts);
  ensureAdminUser(app);
  await store.changed();

  const server = createServer(createHandler(app, buildRouter(), opts.quiet ?? false));
  // Only the client ends an idle kept-alive connection: a server timer closing it races a client
  // that reuses it at that moment ("other side closed"). stop() still ends every connection.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  app.urls.api = `http://127.0.0.1:${port}`;
  attachCi(app);
  await applySeed(app, opts.seed ?? "none");

  let stopped = false;
  return {
    apiUrl: app.urls.api,
    gitUrl: (owner, repo) => app.gitUrl(owner, repo),
    adminToken: app.adminToken,
    admin: new SandboxAdmin(app.urls.api, app.adminToken),
    seedsDir: app.seedsDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      app.stopping = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // No git process outlives the sandbox: a push still running is ended with its whole group.
      await app.gitGroups.stopAll();
      await Promise.allSettled([...app.jobs]);
      await app.commits.stop();
      await app.objects.stop();
      await store.flush();
      if (!persistent) await fsp.rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * state.json holds every token and the repositories every private file (ADR 0222): the data folder
 * and what the sandbox keeps in it are this user's alone. An older sandbox's folder is narrowed; a
 * folder that holds other things (`--data ~`, say) keeps its own mode, and the sandbox's parts in
 * it are narrowed instead.
 */
async function privateDataDir(root: string): Promise<void> {
  await fsp.mkdir(root, { recursive: true, mode: 0o700 });
  const entries = await fsp.readdir(root);
  const ours = new Set(["state.json", "repos", "seeds", "spool"]);
  if (entries.every((e) => ours.has(e) || e.startsWith("state.json."))) await fsp.chmod(root, 0o700);
  for (const dir of ["repos", "seeds"]) {
    await fsp.mkdir(path.join(root, dir), { recursive: true, mode: 0o700 });
    await fsp.chmod(path.join(root, dir), 0o700);
  }
  await fsp.chmod(path.join(root, "state.json"), 0o600).catch(() => undefined);
}

/** A killed sandbox's lock files in its repositories, removed before it serves, and said (left-locks.ts, ADR 0486). */
async function clearLocksLeft(app: App, opts: StartSandboxOptions): Promise<void> {
  const say = opts.notes ?? (opts.quiet ? () => undefined : (line: string) => void process.stderr.write(`${line}\n`));
  const { removed, kept } = await clearLeftLocks(Object.values(app.store.state.repos).map((r) => app.gitDir(r)));
  for (const lock of removed) say(`sandbox: removed ${lock}, a lock no live process holds (left by a sandbox or git that was killed)`);
  for (const lock of kept) say(`sandbox: left ${lock} where it is: a live process may hold it`);
}
