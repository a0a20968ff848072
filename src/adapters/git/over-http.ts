/**
 * The way every call of the Run that can speak smart HTTP from its own process chooses between that
 * and git (ADR 0470, ADR 0476): the client when the remote allows it, git when it does not or when
 * the talk throws UseGit; either way back to git is one line in the Run's log (ADR 0486).
 */
import type { GitTalk } from "./left-to-git";
import { leftToGit, smartHttpFor } from "./left-to-git";
import type { RepoContext } from "./repo-context";
import type { SmartHttpClient } from "./smart-http-client";

/**
 * `talk` over smart HTTP from this process when the remote allows it, else null: then (or when it
 * throws UseGit, git having ways this has not) the caller runs git `what`.
 */
export async function overHttp<T>(ctx: RepoContext, what: GitTalk, talk: (client: SmartHttpClient) => Promise<T>): Promise<T | null> {
  const client = await smartHttpFor(ctx, what);
  if (!client) return null;
  try {
    return await talk(client);
  } catch (e) {
    return leftToGit(ctx, what, e);
  }
}
