/**
 * Leaves the person's clone as clean as the Run found it (ADR 0150). The Checks and the agent run
 * in worktrees that share the clone's `.git`, so they can write its `config` and `hooks/`. The
 * guard remembers both as they were when the Run first looked, and after each Check (and before
 * the Run reaches the remote) puts them back. Nothing is deleted: what was written meanwhile is
 * moved to `.ticket-runner/set-aside/<time>/` in the clone, and the guard says so.
 */
import { lstat, mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitRunner } from "./git-runner";
import { cloneStore } from "./clone-store";

interface Snapshot {
  commonDir: string;
  config: Buffer | null;
  /** hook name -> its bytes and mode */
  hooks: Map<string, { bytes: Buffer; mode: number; file: boolean }>;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  return readFile(path).catch(() => null);
}

async function readHooks(dir: string): Promise<Snapshot["hooks"]> {
  const hooks: Snapshot["hooks"] = new Map();
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const st = await lstat(join(dir, name)).catch(() => null);
    if (!st) continue;
    // A symlink or a folder is kept as "something here" with no bytes: it is compared by presence.
    const bytes = st.isFile() ? await readFile(join(dir, name)) : Buffer.from(`<${st.isSymbolicLink() ? "symlink" : "other"}>`);
    hooks.set(name, { bytes, mode: st.mode & 0o777, file: st.isFile() });
  }
  return hooks;
}

export class CloneGuard {
  private snapshot: Promise<Snapshot> | null = null;

  constructor(
    private readonly git: GitRunner,
    private readonly root: string,
  ) {}

  /** Remembers the clone's config and hooks, once: call before anything a worktree runs. */
  remember(): Promise<Snapshot> {
    this.snapshot ??= this.take();
    return this.snapshot;
  }

  private async take(): Promise<Snapshot> {
    const { commonDir } = await cloneStore(this.git, this.root);
    return { commonDir, config: await readOrNull(join(commonDir, "config")), hooks: await readHooks(join(commonDir, "hooks")) };
  }

  /**
   * Puts config and hooks back as remembered. Returns one line per thing put back (empty when
   * nothing had changed), naming where the written version was set aside.
   */
  async restore(): Promise<string[]> {
    const was = await this.remember();
    const notes: string[] = [];
    let aside: string | null = null;
    const setAside = async (path: string, name: string): Promise<string> => {
      aside ??= join(this.root, ".ticket-runner", "set-aside", new Date().toISOString().replace(/[:.]/g, "-"));
      await mkdir(join(aside, "hooks"), { recursive: true, mode: 0o700 });
      const to = join(aside, name);
      await rename(path, to);
      return to;
    };

    const configPath = join(was.commonDir, "config");
    const config = await readOrNull(configPath);
    if (was.config && (!config || !config.equals(was.config))) {
      if (config) notes.push(`.git/config was changed; the changed file is at ${await setAside(configPath, "config")}`);
      await writeFile(configPath, was.config);
    }

    const hooksDir = join(was.commonDir, "hooks");
    const now = await readHooks(hooksDir);
    for (const [name, hook] of now) {
      const before = was.hooks.get(name);
      if (before && before.bytes.equals(hook.bytes) && before.mode === hook.mode) continue;
      notes.push(`.git/hooks/${name} was ${before ? "changed" : "added"}; it is at ${await setAside(join(hooksDir, name), join("hooks", name))}`);
      if (before?.file) await writeFile(join(hooksDir, name), before.bytes, { mode: before.mode });
    }
    for (const [name, before] of was.hooks) {
      if (now.has(name) || !before.file) continue;
      await mkdir(hooksDir, { recursive: true });
      await writeFile(join(hooksDir, name), before.bytes, { mode: before.mode });
      notes.push(`.git/hooks/${name} was removed; put back`);
    }
    return notes;
  }
}
