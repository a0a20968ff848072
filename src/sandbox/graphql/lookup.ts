/** Finding records by global node id for mutations, with GitHub's NOT_FOUND / FORBIDDEN errors. */
import { canRead, hasRole } from "../auth";
import { parseNodeId } from "../ids";
import type { NodeKind } from "../ids";
import type { IssueRec, RepoRec } from "../model";
import { findIssueById } from "../serialize";
import { gqlError } from "./models";
import type { GqlCtx } from "./models";

export function notFoundNode(id: string): Error {
  return gqlError("NOT_FOUND", `Could not resolve to a node with the global id of '${id}'`);
}

export function issueByNodeId(ctx: GqlCtx, id: string, kinds: NodeKind[] = ["I", "PR"]): { repo: RepoRec; issue: IssueRec } {
  const parsed = parseNodeId(id);
  if (!parsed || !kinds.includes(parsed.kind)) throw notFoundNode(id);
  const found = findIssueById(ctx.state, parsed.dbId);
  if (!found || !canRead(found.repo, ctx.viewer.login)) throw notFoundNode(id);
  return found;
}

export function requireWrite(ctx: GqlCtx, repo: RepoRec, mutation: string): void {
  if (!hasRole(repo, ctx.viewer.login, "write")) {
    throw gqlError("FORBIDDEN", `${ctx.viewer.login} does not have the correct permissions to execute \`${mutation}\``);
  }
}
