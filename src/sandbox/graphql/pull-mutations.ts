/** Pull request mutations: draft state and merging. */
import { gqlError } from "./models";

export function pullMutations(): Record<string, unknown> {
  const todo = () => {
    throw gqlError("UNPROCESSABLE", "not available in this sandbox build yet");
  };
  return { convertPullRequestToDraft: todo, markPullRequestReadyForReview: todo, mergePullRequest: todo };
}
