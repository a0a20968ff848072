/**
 * Issue events and the timeline.
 * https://docs.github.com/rest/issues/events#list-issue-events  (`labeled` events name their actor)
 * https://docs.github.com/rest/issues/events#list-issue-events-for-a-repository  (newest first, ETag, X-Poll-Interval)
 * https://docs.github.com/rest/issues/timeline#list-timeline-events-for-an-issue
 */
import { requireRepo } from "../auth";
import { notFound, ok } from "../http";
import { getIssue } from "../issue-ops";
import type { EventRec, IssueRec } from "../model";
import { paginate } from "../paginate";
import type { Router } from "../router";
import { commentJson, eventJson, issueJson } from "../serialize";

export function registerEventRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/issues/events", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const all: { issue: IssueRec; e: EventRec }[] = [];
    for (const issue of repo.issues) for (const e of issue.events) all.push({ issue, e });
    all.sort((a, b) => b.e.id - a.e.id);
    const { page, headers } = paginate(ctx, all);
    const body = page.map(({ issue, e }) => ({ ...eventJson(state, ctx.app.urls, repo, e), issue: issueJson(state, ctx.app.urls, repo, issue) }));
    return ok(body, 200, { ...headers, "x-poll-interval": "60" });
  });

  router.add("GET", "/repos/:owner/:repo/issues/events/:id", (ctx) => {
    const repo = requireRepo(ctx);
    const id = Number(ctx.params.id);
    for (const issue of repo.issues) {
      const e = issue.events.find((x) => x.id === id);
      if (e) return ok({ ...eventJson(ctx.app.store.state, ctx.app.urls, repo, e), issue: issueJson(ctx.app.store.state, ctx.app.urls, repo, issue) });
    }
    throw notFound();
  });

  router.add("GET", "/repos/:owner/:repo/issues/:number/events", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const { page, headers } = paginate(
      ctx,
      [...issue.events].sort((a, b) => a.id - b.id),
    );
    return ok(
      page.map((e) => eventJson(state, ctx.app.urls, repo, e)),
      200,
      headers,
    );
  });

  router.add("GET", "/repos/:owner/:repo/issues/:number/timeline", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const items: { id: number; json: Record<string, unknown> }[] = [
      ...issue.events.map((e) => ({ id: e.id, json: eventJson(state, ctx.app.urls, repo, e) })),
      ...issue.comments.map((c) => {
        const json = commentJson(state, ctx.app.urls, repo, issue, c);
        return { id: c.id, json: { ...json, event: "commented", actor: json.user } };
      }),
    ];
    items.sort((a, b) => a.id - b.id);
    const { page, headers } = paginate(ctx, items);
    return ok(
      page.map((i) => i.json),
      200,
      headers,
    );
  });
}
