/**
 * A merge's commit object written by the sandbox itself (ADR 0479), the bytes `git commit-tree
 * <tree> -p <parent>... -F -` writes (commit.c `commit_tree_extended`): `tree`, `parent` lines,
 * `author` and `committer` as ident.c `fmt_ident` writes them, a blank line, the message as given.
 * Stored as a loose object the way object-file.c writes one (adapters/git/loose-object-file.ts). What this does not
 * model goes to commit-tree (null): an identity or message git would change or refuse (crud at an
 * ident's ends, `<`/`>`/newlines in it, a NUL or text that is not UTF-8 in the message), and a
 * repository whose config could make commit-tree write other bytes (a hash other than SHA-1, a
 * commit encoding, signing): the caller checks the config once.
 */
import { join } from "node:path";
import { commitBytes, identLine, tzOffset } from "../adapters/git/commit-text";
import type { Ident } from "../adapters/git/commit-text";
import { configState } from "./config-state";
import { writeLooseObjectFileSync } from "../adapters/git/loose-object-file";
import { commitTree, git } from "./git";

export type { Ident };
export { tzOffset };

export interface CommitInput {
  tree: string;
  parents: readonly string[];
  author: Ident;
  committer: Ident;
  message: string;
  /** Seconds since the epoch, as commit-tree's clock reads it when no date is given. */
  when: number;
}

/** The commit's body as commit-tree writes it; null: an input it would write otherwise, or refuse. */
export function commitBody(input: CommitInput): Buffer | null {
  const author = identLine(input.author, input.when);
  const committer = identLine(input.committer, input.when);
  if (author === null || committer === null) return null;
  // A lone surrogate is not UTF-8 once encoded: git's check would rewrite the message.
  if (Buffer.from(input.message, "utf8").toString("utf8") !== input.message) return null;
  return commitBytes({ tree: input.tree, parents: input.parents, author, committer, message: Buffer.from(input.message, "utf8") });
}

/** Writes the commit as a loose object in `gitDir` and returns its id; null: one commit-tree must write. */
export async function writeCommit(gitDir: string, input: CommitInput): Promise<string | null> {
  const body = commitBody(input);
  if (!body) return null;
  // One small file: its calls made in place cost less than a trip to the thread pool each (ADR 0507).
  return writeLooseObjectFileSync(join(gitDir, "objects"), "sha1", "commit", body);
}

interface Checked {
  seen: string;
  plain: Promise<boolean>;
}

/** Per repository: whether its config leaves commit-tree's bytes to the inputs alone, and the config state that answer is for. */
const checked = new Map<string, Checked>();

/**
 * None of the settings that would make commit-tree write other bytes, or store them otherwise, is
 * set: commit.gpgSign, i18n.commitEncoding, extensions.objectFormat, core.sharedRepository (the
 * object file's mode). Any of them set, to anything: commit-tree writes the commit.
 */
async function plainConfig(gitDir: string): Promise<boolean> {
  const seen = await configState(gitDir);
  if (seen === null) return false;
  let entry = checked.get(gitDir);
  if (!entry || entry.seen !== seen) {
    const plain = git(["config", "-z", "--get-regexp", "^(commit\\.gpgsign|i18n\\.commitencoding|extensions\\.objectformat|core\\.sharedrepository)$"], {
      gitDir,
    }).then((r) => r.code === 1);
    entry = { seen, plain };
    checked.set(gitDir, entry);
  }
  return entry.plain;
}

/**
 * A merge's commit: written here when the repository and the inputs allow (no process), else by
 * `git commit-tree`. `env` is the identity commit-tree would be given (GIT_AUTHOR_NAME and the
 * rest); the date is now, as commit-tree's.
 */
export async function makeCommit(gitDir: string, tree: string, parents: string[], message: string, env: Record<string, string>): Promise<string> {
  const author = { name: env.GIT_AUTHOR_NAME ?? "", email: env.GIT_AUTHOR_EMAIL ?? "" };
  const committer = { name: env.GIT_COMMITTER_NAME ?? "", email: env.GIT_COMMITTER_EMAIL ?? "" };
  const when = Math.floor(Date.now() / 1000);
  const written = (await plainConfig(gitDir)) ? await writeCommit(gitDir, { tree, parents, author, committer, message, when }) : null;
  return written ?? commitTree(gitDir, tree, parents, message, env);
}
