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

/** What `git rev-parse` is asked for the store; its two answer lines go to `cloneStoreOf`. */
export const CLONE_STORE_ARGS = ["--git-common-dir", "--show-object-format"] as const;

/** The store from rev-parse's answers to CLONE_STORE_ARGS (the common directory relative to `root` when git prints it so). */
export function cloneStoreOf(root: string, [common = ".git", format = "sha1"]: readonly string[]): CloneStore {
  const commonDir = isAbsolute(common) ? common : resolve(root, common);
  return { commonDir, dir: join(commonDir, "objects"), algorithm: format.trim() === "sha256" ? "sha256" : "sha1" };
}

/** Keeps a store a caller read with its own rev-parse (the preflight's), so no second process asks again. */
export function knowCloneStore(root: string, store: CloneStore): void {
  if (!stores.has(root)) stores.set(root, Promise.resolve(store));
}

export function cloneStore(git: GitRunner, root: string): Promise<CloneStore> {
  let store = stores.get(root);
  if (!store) {
    store = git.text(["rev-parse", ...CLONE_STORE_ARGS], { cwd: root }).then((out) => cloneStoreOf(root, out.split("\n")));
    store.catch(() => stores.delete(root));
    stores.set(root, store);
  }
  return store;
}
