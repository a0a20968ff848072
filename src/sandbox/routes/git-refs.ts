/**
 * Git references and branches.
 * https://docs.github.com/rest/git/refs#get-a-reference
 * https://docs.github.com/rest/git/refs#create-a-reference  (422 "Reference already exists")
 * https://docs.github.com/rest/git/refs#update-a-reference  (force false: fast-forward only, else 422)
 * https://docs.github.com/rest/git/refs#delete-a-reference
 * https://docs.github.com/rest/branches/branches#get-a-branch
 * https://docs.github.com/rest/branches/branches#list-branches  (paginated, sorted by name)
 */
import { z } from "zod";
import type { App } from "../app";
import { requireRepo, requireUser } from "../auth";
import { git, isAncestor, isSafeRefName, listRefs } from "../git";
import { HttpError, noContent, notFound, ok, parseBody } from "../http";
import { paginate } from "../paginate";
import type { RepoRec } from "../model";
import { onPushed } from "../pushes";
import type { Router } from "../router";
import { repoApi } from "../serialize";

const createSchema = z.object({ ref: z.string(), sha: z.string(), key: z.string().optional() }).strict();
const updateSchema = z.object({ sha: z.string(), force: z.boolean().optional() }).strict();

function refJson(app: App, repo: RepoRec, ref: string, sha: string): Record<string, unknown> {
  return {
    ref,
    node_id: `REF_${Buffer.from(ref).toString("base64url")}`,
    url: `${repoApi(app.urls, repo)}/git/${ref}`,
    object: { sha, type: "commit", url: `${repoApi(app.urls, repo)}/git/commits/${sha}` },
  };
}

function fullRef(raw: string): string {
  const ref = raw.startsWith("refs/") ? raw : `refs/${raw}`;
  if (!isSafeRefName(ref.slice(5)) || ref.split("/").length < 3) throw new HttpError(422, "Reference name is not valid");
  return ref;
}

async function objectExists(app: App, repo: RepoRec, sha: string): Promise<boolean> {
  if (!/^[0-9a-f]{40}$/.test(sha)) return false;
  return (await app.commits.commit(app.gitDir(repo), sha)) !== null;
}

export function registerGitRefRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/git/ref/*ref", async (ctx) => {
    const repo = requireRepo(ctx);
    const ref = `refs/${ctx.params.ref ?? ""}`;
    if (!isSafeRefName(ref.slice(5))) throw notFound();
    const sha = (await listRefs(ctx.app.gitDir(repo))).get(ref);
    if (!sha) throw notFound();
    return ok(refJson(ctx.app, repo, ref, sha));
  });

  router.add("GET", "/repos/:owner/:repo/git/matching-refs/*ref", async (ctx) => {
    const repo = requireRepo(ctx);
    const prefix = `refs/${ctx.params.ref ?? ""}`;
    const refs = [...(await listRefs(ctx.app.gitDir(repo)))].filter(([name]) => name.startsWith(prefix));
    return ok(refs.map(([name, sha]) => refJson(ctx.app, repo, name, sha)));
  });

  router.add("POST", "/repos/:owner/:repo/git/refs", async (ctx) => {
    const repo = requireRepo(ctx, "write");
    const body = parseBody(createSchema, ctx.body, "Reference");
    if (!body.ref.startsWith("refs/")) throw new HttpError(422, "Reference name is not valid");
    const ref = fullRef(body.ref);
    if (!(await objectExists(ctx.app, repo, body.sha))) throw new HttpError(422, "Object does not exist");
    if (!(await ctx.app.refs.cas(ctx.app.gitDir(repo), ref, body.sha, ""))) throw new HttpError(422, "Reference already exists");
    await onPushed(ctx.app, repo, [{ ref, before: null, after: body.sha }], requireUser(ctx).login);
    return ok(refJson(ctx.app, repo, ref, body.sha), 201);
  });

  router.add("PATCH", "/repos/:owner/:repo/git/refs/*ref", async (ctx) => {
    const repo = requireRepo(ctx, "write");
    const ref = fullRef(ctx.params.ref ?? "");
    const body = parseBody(updateSchema, ctx.body, "Reference");
    const gitDir = ctx.app.gitDir(repo);
    const current = (await listRefs(gitDir)).get(ref);
    if (!current) throw new HttpError(422, "Reference does not exist");
    if (!(await objectExists(ctx.app, repo, body.sha))) throw new HttpError(422, "Object does not exist");
    if (!body.force && !(await isAncestor(gitDir, current, body.sha))) throw new HttpError(422, "Update is not a fast forward");
    if (!(await ctx.app.refs.cas(gitDir, ref, body.sha, current))) throw new HttpError(422, "Reference cannot be updated");
    await onPushed(ctx.app, repo, [{ ref, before: current, after: body.sha }], requireUser(ctx).login);
    return ok(refJson(ctx.app, repo, ref, body.sha));
  });

  router.add("DELETE", "/repos/:owner/:repo/git/refs/*ref", async (ctx) => {
    const repo = requireRepo(ctx, "write");
    const ref = fullRef(ctx.params.ref ?? "");
    const gitDir = ctx.app.gitDir(repo);
    const current = (await listRefs(gitDir)).get(ref);
    if (!current || !(await ctx.app.refs.delete(gitDir, ref, current))) throw new HttpError(422, "Reference does not exist");
    await onPushed(ctx.app, repo, [{ ref, before: current, after: null }], requireUser(ctx).login);
    return noContent();
  });

  router.add("GET", "/repos/:owner/:repo/branches", async (ctx) => {
    const repo = requireRepo(ctx);
    const heads = [...(await listRefs(ctx.app.gitDir(repo))).entries()].filter(([ref]) => ref.startsWith("refs/heads/"));
    const all = heads.map(([ref, sha]) => ({
      name: ref.slice("refs/heads/".length),
      commit: { sha, url: `${repoApi(ctx.app.urls, repo)}/commits/${sha}` },
      protected: false,
    }));
    all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const { page, headers } = paginate(ctx, all);
    return ok(page, 200, headers);
  });

  router.add("GET", "/repos/:owner/:repo/branches/*branch", async (ctx) => {
    const repo = requireRepo(ctx);
    const name = ctx.params.branch ?? "";
    if (!isSafeRefName(name)) throw notFound();
    const sha = await ctx.app.commits.commit(ctx.app.gitDir(repo), `refs/heads/${name}`);
    if (!sha) throw new HttpError(404, "Branch not found");
    const subject = (await git(["log", "-1", "--format=%s", sha], { gitDir: ctx.app.gitDir(repo) })).stdout.trim();
    return ok({ name, commit: { sha, url: `${repoApi(ctx.app.urls, repo)}/commits/${sha}`, commit: { message: subject } }, protected: false });
  });
}
