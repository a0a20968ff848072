/**
 * The way every call of the Run that can speak smart HTTP from its own process chooses between that
 * and git (ADR 0470, ADR 0476): the client when the remote allows it, git when it does not or when
 * the talk throws UseGit.
 */
import type { RepoContext } from "./repo-context";
import type { SmartHttpClient } from "./smart-http-client";
import { UseGit } from "./smart-http-client";

/**
 * `talk` over smart HTTP from this process when the remote allows it, else null: then (or when it
 * throws UseGit, git having ways this has not) the caller runs git.
 */
export async function overHttp<T>(ctx: RepoContext, talk: (client: SmartHttpClient) => Promise<T>): Promise<T | null> {
  const client = await ctx.net.smartHttp();
  if (!client) return null;
  try {
    return await talk(client);
  } catch (e) {
    if (!(e instanceof UseGit)) throw e;
    if (e.sticky) ctx.net.httpFailed();
    return null;
  }
}
