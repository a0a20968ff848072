/**
 * Git objects over REST, backed by the real repository.
 * https://docs.github.com/rest/git/blobs#create-a-blob
 * https://docs.github.com/rest/git/trees#create-a-tree  /  #get-a-tree
 * https://docs.github.com/rest/git/commits#create-a-commit  /  #get-a-commit-object
 * https://docs.github.com/rest/repos/contents#get-repository-content
 */
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { requireRepo, requireUser } from "../auth";
import { git, gitOk } from "../git";
import { HttpError, notFound, ok, parseBody } from "../http";
import type { Ctx, Router } from "../router";
import { commitNodeId } from "../ids";
import { repoApi, repoHtml } from "../serialize";
import { resolveRef } from "./checks";

const SHA = /^[0-9a-f]{40}$/;
const person = z.object({ name: z.string(), email: z.string(), date: z.string().optional() }).strict();
const blobSchema = z.object({ content: z.string(), encoding: z.enum(["utf-8", "base64"]).optional() }).strict();
const treeSchema = z
  .object({
    base_tree: z.string().optional(),
    tree: z.array(
      z
        .object({
          path: z.string().min(1),
          mode: z.enum(["100644", "100755", "040000", "160000", "120000"]),
          type: z.enum(["blob", "tree", "commit"]),
          sha: z.string().nullable().optional(),
          content: z.string().optional(),
        })
        .strict(),
    ),
  })
  .strict();
const commitSchema = z
  .object({
    message: z.string(),
    tree: z.string(),
    parents: z.array(z.string()).optional(),
    author: person.optional(),
    committer: person.optional(),
    signature: z.string().optional(),
  })
  .strict();

function gitDirOf(ctx: Ctx, need: "read" | "write"): { gitDir: string; api: string; html: string } {
  const repo = requireRepo(ctx, need);
  return { gitDir: ctx.app.gitDir(repo), api: repoApi(ctx.app.urls, repo), html: repoHtml(ctx.app.urls, repo) };
}

async function objectType(gitDir: string, sha: string): Promise<string | null> {
  if (!SHA.test(sha)) return null;
  const r = await git(["cat-file", "-t", sha], { gitDir });
  return r.code === 0 ? r.stdout.trim() : null;
}

function safePath(p: string): boolean {
  return !p.startsWith("/") && p.split("/").every((part) => part !== "" && part !== "." && part !== ".." && part !== ".git");
}

/** A commit as GitHub's "Git Commit" schema has it (its links, its node id; unsigned, so never verified). */
async function commitJson(gitDir: string, urls: { api: string; html: string }, sha: string): Promise<Record<string, unknown>> {
  const { api, html } = urls;
  const raw = await gitOk(["cat-file", "commit", sha], { gitDir });
  const [head, ...rest] = raw.split("\n\n");
  const lines = (head ?? "").split("\n");
  const tree = lines.find((l) => l.startsWith("tree "))?.slice(5) ?? "";
  const parents = lines.filter((l) => l.startsWith("parent ")).map((l) => l.slice(7));
  const who = (prefix: string) => {
    const m = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(lines.find((l) => l.startsWith(prefix))?.slice(prefix.length) ?? "");
    return m ? { name: m[1], email: m[2], date: new Date(Number(m[3]) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") } : null;
  };
  return {
    sha,
    node_id: commitNodeId(sha),
    url: `${api}/git/commits/${sha}`,
    html_url: `${html}/commit/${sha}`,
    tree: { sha: tree, url: `${api}/git/trees/${tree}` },
    parents: parents.map((p) => ({ sha: p, url: `${api}/git/commits/${p}`, html_url: `${html}/commit/${p}` })),
    message: rest.join("\n\n").replace(/\n$/, ""),
    author: who("author "),
    committer: who("committer "),
    verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
  };
}

export function registerGitDataRoutes(router: Router): void {
  router.add("POST", "/repos/:owner/:repo/git/blobs", async (ctx) => {
    const { gitDir, api } = gitDirOf(ctx, "write");
    const body = parseBody(blobSchema, ctx.body, "Blob");
    const data = body.encoding === "base64" ? Buffer.from(body.content, "base64") : Buffer.from(body.content, "utf8");
    const sha = (await gitOk(["hash-object", "-w", "--stdin"], { gitDir, input: data })).trim();
    return ok({ sha, url: `${api}/git/blobs/${sha}` }, 201);
  });

  router.add("POST", "/repos/:owner/:repo/git/trees", async (ctx) => {
    const { gitDir, api } = gitDirOf(ctx, "write");
    const body = parseBody(treeSchema, ctx.body, "Tree");
    if (body.base_tree && (await objectType(gitDir, body.base_tree)) !== "tree") throw new HttpError(422, "base_tree is not a valid tree oid");
    for (const e of body.tree) {
      if (!safePath(e.path)) throw new HttpError(422, `tree.path contains a malformed path component: ${e.path}`);
      if (e.sha && (await objectType(gitDir, e.sha)) === null) throw new HttpError(422, `tree.sha ${e.sha} is not a valid ${e.type}`);
    }
    const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-tree-"));
    const env = { GIT_INDEX_FILE: path.join(tmp, "index") };
    try {
      await gitOk(body.base_tree ? ["read-tree", body.base_tree] : ["read-tree", "--empty"], { gitDir, env });
      for (const e of body.tree) {
        if (e.sha === null) {
          await gitOk(["update-index", "--force-remove", "--", e.path], { gitDir, env });
          continue;
        }
        const sha = e.content !== undefined ? (await gitOk(["hash-object", "-w", "--stdin"], { gitDir, input: e.content })).trim() : (e.sha ?? "");
        await gitOk(["update-index", "--add", "--cacheinfo", `${e.mode},${sha},${e.path}`], { gitDir, env });
      }
      const sha = (await gitOk(["write-tree"], { gitDir, env })).trim();
      return ok({ sha, url: `${api}/git/trees/${sha}`, truncated: false, tree: await treeEntries(gitDir, api, sha, false) }, 201);
    } finally {
      await fsp.rm(tmp, { recursive: true, force: true });
    }
  });

  router.add("GET", "/repos/:owner/:repo/git/trees/:sha", async (ctx) => {
    const { gitDir, api } = gitDirOf(ctx, "read");
    const sha = ctx.params.sha ?? "";
    if ((await objectType(gitDir, sha)) !== "tree") throw notFound();
    return ok({ sha, url: `${api}/git/trees/${sha}`, truncated: false, tree: await treeEntries(gitDir, api, sha, !!ctx.query.get("recursive")) });
  });

  router.add("POST", "/repos/:owner/:repo/git/commits", async (ctx) => {
    const { gitDir, api, html } = gitDirOf(ctx, "write");
    const body = parseBody(commitSchema, ctx.body, "Commit");
    if ((await objectType(gitDir, body.tree)) !== "tree") throw new HttpError(422, "Tree SHA does not exist");
    for (const p of body.parents ?? [])
      if ((await objectType(gitDir, p)) !== "commit") throw new HttpError(422, "Parent SHA does not exist or is not a commit object");
    const user = requireUser(ctx);
    const author = body.author ?? { name: user.login, email: `${user.id}+${user.login}@users.noreply.sandbox.invalid` };
    const committer = body.committer ?? author;
    const env: Record<string, string> = {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
    };
    if (author.date) env.GIT_AUTHOR_DATE = author.date;
    if (committer.date) env.GIT_COMMITTER_DATE = committer.date;
    const args = ["commit-tree", body.tree];
    for (const p of body.parents ?? []) args.push("-p", p);
    const sha = (await gitOk([...args, "-F", "-"], { gitDir, input: body.message, env })).trim();
    return ok(await commitJson(gitDir, { api, html }, sha), 201);
  });

  router.add("GET", "/repos/:owner/:repo/git/commits/:sha", async (ctx) => {
    const { gitDir, api, html } = gitDirOf(ctx, "read");
    const sha = ctx.params.sha ?? "";
    if ((await objectType(gitDir, sha)) !== "commit") throw notFound();
    return ok(await commitJson(gitDir, { api, html }, sha));
  });

  router.add("GET", "/repos/:owner/:repo/contents/*path", async (ctx) => {
    const repo = requireRepo(ctx);
    const gitDir = ctx.app.gitDir(repo);
    const file = ctx.params.path ?? "";
    if (!safePath(file)) throw notFound();
    const sha = await resolveRef(ctx.app, repo, ctx.query.get("ref") ?? repo.defaultBranch).catch(() => {
      throw new HttpError(404, `No commit found for the ref ${ctx.query.get("ref") ?? repo.defaultBranch}`);
    });
    const ls = (await gitOk(["ls-tree", "-l", sha, "--", file], { gitDir })).trim();
    const m = /^(\d+) (\w+) ([0-9a-f]{40})\s+(-|\d+)\t(.*)$/.exec(ls);
    if (!m) throw notFound();
    const api = repoApi(ctx.app.urls, repo);
    if (m[2] === "tree") return ok(await treeEntries(gitDir, api, m[3] ?? "", false));
    // Text files only: the sandbox reads blobs as UTF-8 (State and lock files are JSON).
    const blob = await git(["cat-file", "blob", m[3] ?? ""], { gitDir });
    if (blob.code !== 0) throw notFound();
    const content = Buffer.from(blob.stdout, "utf8");
    return ok({
      type: "file",
      encoding: "base64",
      size: Number(m[4]),
      name: path.posix.basename(file),
      path: file,
      content: content.toString("base64"),
      sha: m[3],
      url: `${api}/contents/${file}`,
    });
  });
}

async function treeEntries(gitDir: string, api: string, sha: string, recursive: boolean): Promise<Record<string, unknown>[]> {
  const out = await gitOk(["ls-tree", "-l", ...(recursive ? ["-r", "-t"] : []), sha], { gitDir });
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const m = /^(\d+) (\w+) ([0-9a-f]{40})\s+(-|\d+)\t(.*)$/.exec(line);
      if (!m) return {};
      const [, mode, type, oid, size, p] = m;
      return {
        path: p,
        mode,
        type,
        sha: oid,
        ...(size === "-" ? {} : { size: Number(size) }),
        url: `${api}/git/${type === "tree" ? "trees" : "blobs"}/${oid}`,
      };
    });
}
