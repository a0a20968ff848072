/**
 * Pull request mutations: draft state and merging
 * (https://docs.github.com/graphql/reference/mutations#mergepullrequest).
 */
import { hasRole } from "../auth";
import { addEvent } from "../issue-ops";
import { isoNow } from "../model";
import { mergePull } from "../pull-ops";
import type { MergeMethod } from "../pull-ops";
import { gqlError, issueNode } from "./models";
import type { GqlCtx } from "./models";
import { issueByNodeId } from "./lookup";

type Input<T> = { input: T & { clientMutationId?: string | null } };

function pullFor(ctx: GqlCtx, id: string, mutation: string) {
  const found = issueByNodeId(ctx, id, ["PR"]);
  if (found.issue.user !== ctx.viewer.login && !hasRole(found.repo, ctx.viewer.login, "write")) {
    throw gqlError("FORBIDDEN", `${ctx.viewer.login} does not have the correct permissions to execute \`${mutation}\``);
  }
  return found;
}

function setDraft(ctx: GqlCtx, id: string, draft: boolean, mutation: string, clientMutationId: string | null | undefined) {
  const { repo, issue } = pullFor(ctx, id, mutation);
  const pr = issue.pr;
  if (!pr || pr.merged || issue.state !== "open") throw gqlError("UNPROCESSABLE", "Pull request is closed or merged.");
  if (pr.draft !== draft) {
    pr.draft = draft;
    addEvent(ctx.app, issue, ctx.viewer.login, draft ? "convert_to_draft" : "ready_for_review");
    issue.updatedAt = isoNow();
  }
  return { clientMutationId: clientMutationId ?? null, pullRequest: issueNode(ctx, repo, issue) };
}

export function pullMutations(): Record<string, unknown> {
  return {
    convertPullRequestToDraft: ({ input }: Input<{ pullRequestId: string }>, ctx: GqlCtx) =>
      setDraft(ctx, input.pullRequestId, true, "ConvertPullRequestToDraft", input.clientMutationId),
    markPullRequestReadyForReview: ({ input }: Input<{ pullRequestId: string }>, ctx: GqlCtx) =>
      setDraft(ctx, input.pullRequestId, false, "MarkPullRequestReadyForReview", input.clientMutationId),
    mergePullRequest: async (
      {
        input,
      }: Input<{
        pullRequestId: string;
        expectedHeadOid?: string | null;
        mergeMethod?: string | null;
        commitHeadline?: string | null;
        commitBody?: string | null;
      }>,
      ctx: GqlCtx,
    ) => {
      const { repo, issue } = issueByNodeId(ctx, input.pullRequestId, ["PR"]);
      if (!hasRole(repo, ctx.viewer.login, "write"))
        throw gqlError("FORBIDDEN", `${ctx.viewer.login} does not have the correct permissions to execute \`MergePullRequest\``);
      const method = (input.mergeMethod ?? "MERGE").toLowerCase() as MergeMethod;
      await mergePull(ctx.app, repo, issue, { sha: input.expectedHeadOid, method, title: input.commitHeadline, message: input.commitBody }, ctx.viewer.login);
      return { clientMutationId: input.clientMutationId ?? null, pullRequest: issueNode(ctx, repo, issue) };
    },
  };
}
