/**
 * The protocol v2 answer to `GET info/refs?service=git-upload-pack` (ADR 0474): upload-pack's
 * capability list (serve.c `protocol_v2_advertise_capabilities`), which names no ref and no object.
 * What it depends on is the installed git and the configuration upload-pack reads (lsrefs.unborn,
 * uploadpack.allowFilter, extensions.objectFormat, ...), so each repository's copy is the real
 * `git upload-pack --http-backend-info-refs .` output, made on its first such request and made
 * again when the config files git reads for it change (config-state.ts). A list with a
 * `session-id=` in it (transfer.advertiseSID) differs in every process: upload-pack answers each
 * request then, until the config changes.
 */
import { KeptPerConfig } from "./config-state";
import { git } from "./git";

async function fromUploadPack(gitDir: string): Promise<Buffer | null> {
  const r = await git(["upload-pack", "--http-backend-info-refs", "."], { cwd: gitDir, env: { GIT_PROTOCOL: "version=2" } });
  if (r.code !== 0 || !r.stdout) return null;
  // A session id is this process's own: the next request must get one of its own.
  if (r.stdout.includes("session-id=")) return null;
  return Buffer.from(r.stdout, "utf8");
}

export class V2Capabilities {
  private readonly copies = new KeptPerConfig((gitDir) => fromUploadPack(gitDir));

  /**
   * The repository's v2 capability advertisement, or null: the caller runs upload-pack, as for any
   * request not answered here (a repository without its config file, git failing, a session id).
   */
  async advertisement(gitDir: string): Promise<Buffer | null> {
    // Kept null too (a session id, git failing): upload-pack answers until the config changes.
    return (await this.copies.get(gitDir)) ?? null;
  }

  /** Forgets a repository's copy (made anew), or every copy (the sandbox reset). */
  forget(gitDir?: string): void {
    this.copies.forget(gitDir);
  }
}
