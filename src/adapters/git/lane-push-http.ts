/**
 * The Lane's branch push spoken from the Run's process over smart HTTP (ADR 0478), as the records'
 * pushes are (ADR 0470): receive-pack's ref advertisement, the leases checked against it as
 * `git push --force-with-lease` checks them, one request with the commands (atomic when a State
 * record goes along) and a pack made by one `git pack-objects` in the Run's private directory,
 * the record's objects in the same pack. What the remote says back is written as `git push
 * --porcelain` shows it, so the refusal is read (push-refusal.ts) as it was from git. Anything this
 * does not do (sha256, a shallow clone, git's own HTTP settings, an answer that does not read) is
 * left to `git push`: every function here answers null for that.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { cloneStore } from "./clone-store";
import type { HttpMove, HttpPushOutcome } from "./record-push-http";
import { pushOverHttp } from "./record-push-http";
import type { RepoContext } from "./repo-context";
import type { Advertisement, SmartHttpClient } from "./smart-http-client";
import { UseGit } from "./smart-http-client";
import { leftToGit, noteLeftToGit, smartHttpFor } from "./left-to-git";

export interface LaneHttp {
  client: SmartHttpClient;
  adv: Advertisement;
}

/** At most this many advertised tips are offered to pack-objects as what the remote has. */
const MAX_BASES = 256;
/** A pack larger than this is left to `git push`, which streams it: this one is held in memory and sent whole. */
const MAX_PACK = 32 * 1024 * 1024;

/**
 * The receive-pack advertisement for a push from this process, or null: git pushes. An HTTP error
 * (401, 403, 404, a 5xx) is also git's to meet, so the Lane's refusal reads in git's own words.
 */
export async function laneAdvertisement(ctx: RepoContext): Promise<LaneHttp | null> {
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1") return toGit(ctx, "a clone that is not SHA-1");
  // A shallow clone's pack needs git's `--shallow` handling: left to git.
  if (
    await stat(join(store.commonDir, "shallow")).then(
      () => true,
      () => false,
    )
  )
    return toGit(ctx, "a shallow clone");
  const client = await smartHttpFor(ctx, "push");
  if (!client) return null;
  try {
    const adv = await client.advertise("receive-pack");
    const format = adv.caps.get("object-format");
    return format === undefined || format === "sha1" ? { client, adv } : toGit(ctx, `the remote's object format is ${format}`);
  } catch (e) {
    return leftToGit(ctx, "push", e, true);
  }
}

/** A push this process does not take: said in the Run's log, as every talk left to git is. */
function toGit(ctx: RepoContext, why: string): null {
  noteLeftToGit(ctx, "push", why);
  return null;
}

/**
 * The objects the remote may be taken to have, as pack-objects' `^<id>` lines: the advertised
 * branch tips (the base's, the branch's own) and the record's expected tip. Only those this clone
 * has can be used (pack-objects stops at an object it lacks): the caller asks the clone.
 */
export function baseCandidates(adv: Advertisement, moves: HttpMove[]): string[] {
  const tips = adv.refs.filter(([ref]) => ref.startsWith("refs/heads/") && !ref.endsWith("^{}")).map(([, id]) => id);
  const expected = moves.flatMap((m) => (m.expected ? [m.expected] : []));
  return [...new Set([...expected, ...tips])].slice(0, MAX_BASES);
}

/**
 * `moves` (the branch first, then the record when one goes along) pushed from this process, or
 * null when git should push them. `bases`: tips the remote has that this clone has too.
 */
export async function pushLaneOverHttp(ctx: RepoContext, http: LaneHttp, moves: HttpMove[], bases: string[]): Promise<HttpPushOutcome | null> {
  const pack = async (wanted: HttpMove[], onRemote: Set<string>, adv: Advertisement): Promise<Buffer> => {
    const tips = wanted.flatMap((m) => (m.commit !== null && !onRemote.has(m.commit) ? [m.commit] : []));
    const not = bases.filter((b) => onRemote.has(b));
    // A thin pack, as `git push` sends one: deltas against what the remote has are not sent again.
    const args = ["pack-objects", "--stdout", "--thin", "--revs", "-q", ...(adv.caps.has("ofs-delta") ? ["--delta-base-offset"] : [])];
    const res = await ctx.net.offline(args, { input: [...tips, ...not.map((b) => `^${b}`)].join("\n") + "\n" });
    if (res.code !== 0) throw new UseGit(`pack-objects failed (${res.code}): ${ctx.git.redact(res.stderr.trim()).slice(0, 200)}`);
    if (res.stdout.length > MAX_PACK) throw new UseGit(`a pack of ${res.stdout.length} bytes`);
    return res.stdout;
  };
  // A branch the remote already has at the new tip is "up to date" to git before any lease is
  // looked at: pushed, whatever this Host last saw of it.
  const now = http.adv.refs.find(([ref]) => ref === moves[0]?.ref)?.[1];
  if (moves.length === 1 && now !== undefined && now === moves[0]?.commit) return { outcome: "pushed" };
  try {
    return await pushOverHttp(http.client, moves, { advertisement: http.adv, pack });
  } catch (e) {
    return leftToGit(ctx, "push", e, true);
  }
}

/**
 * What `git push --porcelain` prints (its output and its errors, as lane-ops.ts joins them) for a
 * refused push: `lost` (a lease that did not hold: "stale info"), else the remote's words.
 */
export function asGitPorcelain(url: string, moves: HttpMove[], out: Exclude<HttpPushOutcome, { outcome: "pushed" }>): string {
  const lines =
    out.outcome === "lost"
      ? moves.map((m, i) => `!\t${m.commit ?? ""}:${m.ref}\t[rejected] (${i === 0 ? "stale info" : "atomic push failed"})`)
      : out.said.split("\n").filter((l) => !l.startsWith("remote: "));
  const remote = out.outcome === "lost" ? [] : out.said.split("\n").filter((l) => l.startsWith("remote: "));
  return [`To ${url}`, ...lines, "Done", "", ...remote, `error: failed to push some refs to '${url}'`].join("\n");
}
