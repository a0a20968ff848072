/**
 * Users, repositories, collaborator permission and the rate-limit endpoint.
 * https://docs.github.com/rest/users/users#get-the-authenticated-user
 * https://docs.github.com/rest/repos/repos#get-a-repository
 * https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
 * https://docs.github.com/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user
 */
import { z } from "zod";
import { hasRole, requireRepo, requireUser, roleOf } from "../auth";
import { HttpError, noContent, notFound, ok, parseBody, validationFailed } from "../http";
import { isoNow } from "../model";
import type { Router } from "../router";
import { repoJson, userJson } from "../serialize";

const patchRepoSchema = z
  .object({
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    private: z.boolean().optional(),
    visibility: z.enum(["public", "private"]).optional(),
    default_branch: z.string().optional(),
    allow_squash_merge: z.boolean().optional(),
    allow_merge_commit: z.boolean().optional(),
    allow_rebase_merge: z.boolean().optional(),
    delete_branch_on_merge: z.boolean().optional(),
    has_issues: z.boolean().optional(),
    security_and_analysis: z
      .object({
        secret_scanning: z
          .object({ status: z.enum(["enabled", "disabled"]) })
          .strict()
          .optional(),
        secret_scanning_push_protection: z
          .object({ status: z.enum(["enabled", "disabled"]) })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export function registerRepoRoutes(router: Router): void {
  router.add("GET", "/user", (ctx) => {
    const user = requireUser(ctx);
    // GitHub: an installation token (an App's, or Actions' GITHUB_TOKEN) is no user and may not read /user.
    if (user.login.endsWith("[bot]")) throw new HttpError(403, "Resource not accessible by integration");
    // GitHub's public-user profile: a sandbox account has none of it, so empty and zero.
    const profile = {
      company: null,
      blog: "",
      location: null,
      hireable: null,
      bio: null,
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      collaborators: 0,
    };
    return ok({
      ...userJson(ctx.app.store.state, ctx.app.urls, user.login),
      name: user.login,
      email: null,
      ...profile,
      created_at: user.createdAt,
      updated_at: user.createdAt,
    });
  });

  router.add("GET", "/users/:login", (ctx) => {
    const user = ctx.app.store.user(ctx.params.login ?? "");
    if (!user) throw notFound();
    return ok(userJson(ctx.app.store.state, ctx.app.urls, user.login));
  });

  router.add("GET", "/rate_limit", (ctx) => {
    const key = ctx.user ? String(ctx.user.id) : (ctx.req.socket.remoteAddress ?? "anonymous");
    const shape = (resource: "core" | "graphql") => {
      const i = ctx.app.rates.info(key, !ctx.user, resource);
      return { limit: i.limit, used: i.used, remaining: i.remaining, reset: i.reset };
    };
    return ok({ resources: { core: shape("core"), graphql: shape("graphql") }, rate: shape("core") });
  });

  router.add("GET", "/repos/:owner/:repo", (ctx) => {
    const repo = requireRepo(ctx);
    return ok(repoJson(ctx.app.store.state, ctx.app.urls, repo, ctx.user?.login, ctx.app.gitUrl(repo.owner, repo.name)));
  });

  router.add("PATCH", "/repos/:owner/:repo", async (ctx) => {
    const repo = requireRepo(ctx, "admin");
    const body = parseBody(patchRepoSchema, ctx.body, "Repository");
    if (body.name !== undefined && body.name !== repo.name) {
      throw validationFailed([{ resource: "Repository", field: "name", code: "custom", message: "renaming is not supported by the sandbox" }]);
    }
    if (body.default_branch !== undefined && !(await ctx.app.commits.commit(ctx.app.gitDir(repo), `refs/heads/${body.default_branch}`))) {
      throw validationFailed([{ resource: "Repository", field: "default_branch", code: "invalid" }]);
    }
    // GitHub keeps at least one merge method on ("you need to allow at least one merge strategy").
    const merge = body.allow_merge_commit ?? repo.allowMergeCommit;
    const squash = body.allow_squash_merge ?? repo.allowSquashMerge;
    const rebase = body.allow_rebase_merge ?? repo.allowRebaseMerge;
    if (!merge && !squash && !rebase) {
      throw validationFailed([
        {
          resource: "Repository",
          field: "merge_commit_allowed",
          code: "custom",
          message: "Sorry, you need to allow at least one merge strategy. (no_merge_method)",
        },
      ]);
    }
    if (body.description !== undefined) repo.description = body.description;
    if (body.private !== undefined) repo.private = body.private;
    if (body.visibility !== undefined) repo.private = body.visibility === "private";
    if (body.default_branch !== undefined) repo.defaultBranch = body.default_branch;
    if (body.allow_squash_merge !== undefined) repo.allowSquashMerge = body.allow_squash_merge;
    if (body.allow_merge_commit !== undefined) repo.allowMergeCommit = body.allow_merge_commit;
    if (body.allow_rebase_merge !== undefined) repo.allowRebaseMerge = body.allow_rebase_merge;
    if (body.delete_branch_on_merge !== undefined) repo.deleteBranchOnMerge = body.delete_branch_on_merge;
    const protection = body.security_and_analysis?.secret_scanning_push_protection?.status;
    if (protection !== undefined) repo.pushProtection = protection === "enabled";
    repo.updatedAt = isoNow();
    return ok(repoJson(ctx.app.store.state, ctx.app.urls, repo, ctx.user?.login, ctx.app.gitUrl(repo.owner, repo.name)));
  });

  router.add("GET", "/repos/:owner/:repo/collaborators/:user/permission", (ctx) => {
    const repo = requireRepo(ctx);
    // GitHub lets only people with push access ask about others.
    if (!hasRole(repo, ctx.user?.login, "write")) throw new HttpError(403, "Must have push access to view repository collaborators.");
    const user = ctx.app.store.user(ctx.params.user ?? "");
    if (!user) throw new HttpError(404, `${ctx.params.user} is not a user`);
    let role: string = roleOf(repo, user.login);
    // A public repository is readable by everyone, and GitHub answers "read" for non-collaborators.
    if (role === "none" && !repo.private) role = "read";
    return ok({
      permission: role,
      role_name: role,
      user: {
        ...userJson(ctx.app.store.state, ctx.app.urls, user.login),
        role_name: role,
        permissions: {
          admin: role === "admin",
          maintain: role === "admin",
          push: role !== "read" && role !== "none",
          triage: role !== "read" && role !== "none",
          pull: role !== "none",
        },
      },
    });
  });

  router.add("GET", "/repos/:owner/:repo/assignees/:user", (ctx) => {
    const repo = requireRepo(ctx);
    const user = ctx.app.store.user(ctx.params.user ?? "");
    if (!user || !hasRole(repo, user.login, "write")) throw notFound();
    return noContent();
  });
}
