/** Every REST and GraphQL route, in match order (specific paths before `:number` ones). */
import { registerGraphql } from "./graphql/handler";
import { Router } from "./router";
import { registerCheckRoutes } from "./routes/checks";
import { registerCommentRoutes } from "./routes/comments";
import { registerEventRoutes } from "./routes/events";
import { registerGitDataRoutes } from "./routes/git-data";
import { registerGitRefRoutes } from "./routes/git-refs";
import { registerIssueEditRoutes } from "./routes/issue-edits";
import { registerIssueRoutes } from "./routes/issues";
import { registerLabelRoutes } from "./routes/labels";
import { registerPullRoutes } from "./routes/pulls";
import { registerRepoRoutes } from "./routes/repos";
import { registerRulesetRoutes } from "./rulesets";

export function buildRouter(): Router {
  const router = new Router();
  registerRepoRoutes(router);
  registerRulesetRoutes(router);
  registerLabelRoutes(router);
  registerCommentRoutes(router);
  registerEventRoutes(router);
  registerIssueEditRoutes(router);
  registerIssueRoutes(router);
  registerPullRoutes(router);
  registerCheckRoutes(router);
  registerGitRefRoutes(router);
  registerGitDataRoutes(router);
  registerGraphql(router);
  return router;
}
