/**
 * What the config files git reads for a sandbox repository look like now, as one string: its own
 * config, and the global ones (config.c `git_global_config`; the system one is off,
 * GIT_CONFIG_NOSYSTEM). An answer kept because it depends only on the configuration (ADR 0474) is
 * made again when this string changes. Files named by an `[include]` are not followed.
 */
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { git } from "./git";

function configFiles(gitDir: string): string[] {
  const home = process.env.HOME ?? os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME ? path.join(process.env.XDG_CONFIG_HOME, "git", "config") : path.join(home, ".config", "git", "config");
  return [path.join(gitDir, "config"), path.join(home, ".gitconfig"), xdg];
}

/**
 * Inode, size, mtime and ctime of each file ("-": absent), so a file rewritten within one mtime
 * tick differs; null: the repository has no config file. The three stats are made in place: every
 * git request asks this once or more, and a trip to the thread pool a stat cost more CPU than the
 * stat itself (ADR 0507).
 */
export async function configState(gitDir: string): Promise<string | null> {
  const parts = configFiles(gitDir).map((f) => {
    try {
      const s = statSync(f, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch {
      return "-";
    }
  });
  return parts[0] === "-" ? null : parts.join("|");
}

/**
 * Values made once per repository and made again when its configuration changes (ADR 0474): each
 * kept answer of the sandbox's git services (v2 capabilities, receive-pack's and upload-pack's
 * setups) holds one.
 */
export class KeptPerConfig<T> {
  private readonly kept = new Map<string, { seen: string; value: T }>();

  constructor(private readonly make: (gitDir: string) => T) {}

  /** The value for `gitDir`, made now when there is none or its config changed; null: the repository has no config file. */
  async get(gitDir: string): Promise<T | null> {
    const seen = await configState(gitDir);
    if (seen === null) return null;
    let kept = this.kept.get(gitDir);
    if (!kept || kept.seen !== seen) {
      kept = { seen, value: this.make(gitDir) };
      this.kept.set(gitDir, kept);
    }
    return kept.value;
  }

  /** The value made last for `gitDir`, without a look at its config; undefined: none yet. */
  latest(gitDir: string): T | undefined {
    return this.kept.get(gitDir)?.value;
  }

  /** Forgets a repository's value (made anew), or every one (the sandbox reset). */
  forget(gitDir?: string): void {
    if (gitDir === undefined) this.kept.clear();
    else this.kept.delete(gitDir);
  }
}

/**
 * A repository's `git config --list -z` (`key\nvalue\0` each), one process per config state,
 * shared by what reads it (receive-setup.ts, upload-pack-in-process.ts); null: git could not list it.
 */
export class ConfigListings {
  private readonly kept = new KeptPerConfig(async (gitDir): Promise<string | null> => {
    const r = await git(["config", "--list", "-z"], { gitDir });
    return r.code === 0 ? r.stdout : null;
  });

  async listing(gitDir: string): Promise<string | null> {
    return (await this.kept.get(gitDir)) ?? null;
  }

  /** Forgets a repository's listing (made anew), or every one (the sandbox reset). */
  forget(gitDir?: string): void {
    this.kept.forget(gitDir);
  }
}
