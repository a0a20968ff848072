/** Every REST and GraphQL route, in match order (specific paths before `:number` ones). */
import { registerGraphql } from "./graphql/handler";
import { Router } from "./router";
import { registerCommentRoutes } from "./routes/comments";
import { registerEventRoutes } from "./routes/events";
import { registerIssueEditRoutes } from "./routes/issue-edits";
import { registerIssueRoutes } from "./routes/issues";
import { registerLabelRoutes } from "./routes/labels";
import { registerRepoRoutes } from "./routes/repos";

export function buildRouter(): Router {
  const router = new Router();
  registerRepoRoutes(router);
  registerLabelRoutes(router);
  registerCommentRoutes(router);
  registerEventRoutes(router);
  registerIssueEditRoutes(router);
  registerIssueRoutes(router);
  registerGraphql(router);
  return router;
}
