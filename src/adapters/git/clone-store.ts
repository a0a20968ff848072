/**
 * The clone's common git directory, object directory and hash, asked of git once per clone and
 * process, and shared by everything that needs them: the records' objects (loose-objects.ts), the
 * private git directory (remote-git.ts) and the clone guard (ADR 0400).
 */
import { isAbsolute, join, resolve } from "node:path";
import type { GitRunner } from "./git-runner";

export interface CloneStore {
  commonDir: string;
  dir: string;
  algorithm: "sha1" | "sha256";
}

const stores = new Map<string, Promise<CloneStore>>();

export function cloneStore(git: GitRunner, root: string): Promise<CloneStore> {
  let store = stores.get(root);
  if (!store) {
    store = git.text(["rev-parse", "--git-common-dir", "--show-object-format"], { cwd: root }).then((out) => {
      const [common = ".git", format = "sha1"] = out.split("\n");
      const commonDir = isAbsolute(common) ? common : resolve(root, common);
      return { commonDir, dir: join(commonDir, "objects"), algorithm: format.trim() === "sha256" ? "sha256" : "sha1" } satisfies CloneStore;
    });
    store.catch(() => stores.delete(root));
    stores.set(root, store);
  }
  return store;
}
