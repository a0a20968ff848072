/**
 * Repository labels.
 * https://docs.github.com/rest/issues/labels#list-labels-for-a-repository
 * https://docs.github.com/rest/issues/labels#create-a-label  (422 already_exists)
 * https://docs.github.com/rest/issues/labels#get-a-label
 */
import { z } from "zod";
import { requireRepo } from "../auth";
import { noContent, notFound, ok, parseBody, validationFailed } from "../http";
import { findLabel } from "../issue-ops";
import { paginate } from "../paginate";
import type { Router } from "../router";
import { labelJson } from "../serialize";

const createSchema = z
  .object({ name: z.string().min(1).max(50), color: z.string().optional(), description: z.string().max(100).nullable().optional() })
  .strict();
const updateSchema = z
  .object({ new_name: z.string().min(1).max(50).optional(), color: z.string().optional(), description: z.string().max(100).nullable().optional() })
  .strict();

function checkColor(color: string | undefined): string | undefined {
  if (color === undefined) return undefined;
  const c = color.replace(/^#/, "");
  if (!/^[0-9a-fA-F]{6}$/.test(c)) throw validationFailed([{ resource: "Label", field: "color", code: "invalid" }]);
  return c.toLowerCase();
}

export function registerLabelRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/labels", (ctx) => {
    const repo = requireRepo(ctx, "read", ctx.app.store.view());
    const { page, headers } = paginate(ctx, repo.labels);
    return ok(
      page.map((l) => labelJson(ctx.app.urls, repo, l)),
      200,
      headers,
    );
  });

  router.add("POST", "/repos/:owner/:repo/labels", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const body = parseBody(createSchema, ctx.body, "Label");
    const color = checkColor(body.color) ?? "ededed";
    if (findLabel(repo, body.name)) throw validationFailed([{ resource: "Label", code: "already_exists", field: "name" }]);
    const label = { id: ctx.app.store.nextId(), name: body.name, color, description: body.description ?? null, default: false };
    repo.labels.push(label);
    return ok(labelJson(ctx.app.urls, repo, label), 201);
  });

  router.add("GET", "/repos/:owner/:repo/labels/:name", (ctx) => {
    const repo = requireRepo(ctx);
    const label = findLabel(repo, ctx.params.name ?? "");
    if (!label) throw notFound();
    return ok(labelJson(ctx.app.urls, repo, label));
  });

  router.add("PATCH", "/repos/:owner/:repo/labels/:name", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const label = findLabel(repo, ctx.params.name ?? "");
    if (!label) throw notFound();
    const body = parseBody(updateSchema, ctx.body, "Label");
    const color = checkColor(body.color);
    if (body.new_name && body.new_name.toLowerCase() !== label.name.toLowerCase() && findLabel(repo, body.new_name)) {
      throw validationFailed([{ resource: "Label", code: "already_exists", field: "name" }]);
    }
    if (body.new_name) label.name = body.new_name;
    if (color) label.color = color;
    if (body.description !== undefined) label.description = body.description;
    return ok(labelJson(ctx.app.urls, repo, label));
  });

  router.add("DELETE", "/repos/:owner/:repo/labels/:name", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const label = findLabel(repo, ctx.params.name ?? "");
    if (!label) throw notFound();
    repo.labels = repo.labels.filter((l) => l.id !== label.id);
    for (const issue of repo.issues) issue.labels = issue.labels.filter((id) => id !== label.id);
    return noContent();
  });
}
