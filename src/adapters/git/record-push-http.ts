/**
 * A record push spoken from this process over smart HTTP (ADR 0470): the receive-pack ref
 * advertisement, then one request with the commands `<old> <new> <ref>` and a pack of the objects
 * this process made for the new commits (made-objects.ts), then receive-pack's report
 * (gitprotocol-pack(5), "Pushing Data To a Server", report-status, side-band-64k). The leases are
 * those of `git push --force-with-lease=<ref>:<expected>`: checked against the advertisement
 * first, and by receive-pack itself against `<old>`. Anything git could handle and this cannot
 * throws UseGit before the request is sent, or after it only once the refs show nothing moved.
 */
import type { MadeObject } from "./made-objects";
import { madeObject } from "./made-objects";
import { buildPack } from "./pack-file";
import { FLUSH, MalformedPkt, demuxSideBand, pktLine, pktText, readPktLines } from "./pkt-line";
import type { Advertisement, SmartHttpClient } from "./smart-http-client";
import { UseGit } from "./smart-http-client";

export interface HttpMove {
  ref: string;
  /** null deletes the ref. */
  commit: string | null;
  /** null: the ref must not exist. */
  expected: string | null;
}

export type HttpPushOutcome = { outcome: "pushed" } | { outcome: "lost" } | { outcome: "refused"; said: string };

const ZERO = "0".repeat(40);

/** ref -> id of the advertised refs (peeled lines left out). */
function refValues(adv: Advertisement): Map<string, string> {
  return new Map(adv.refs.filter(([ref]) => !ref.endsWith("^{}")));
}

function leasesHold(values: Map<string, string>, moves: HttpMove[]): boolean {
  return moves.every((m) => (values.get(m.ref) ?? null) === m.expected);
}

/** The tree and parents of a commit's body. */
function commitLinks(body: Buffer): { tree: string; parents: string[] } {
  const head = body.toString("latin1", 0, body.indexOf("\n\n") < 0 ? body.length : body.indexOf("\n\n"));
  const tree = /^tree ([0-9a-f]+)$/m.exec(head)?.[1];
  if (!tree) throw new UseGit("a commit without a tree line");
  return { tree, parents: [...head.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1]!) };
}

/** The entries of a tree's body that name trees or blobs (gitlinks are commits elsewhere). */
function treeLinks(body: Buffer, idBytes: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < body.length) {
    const nul = body.indexOf(0, at);
    if (nul < 0 || nul + 1 + idBytes > body.length) throw new UseGit("a tree that does not read");
    const mode = body.toString("latin1", at, body.indexOf(0x20, at));
    if (mode !== "160000") out.push(body.toString("hex", nul + 1, nul + 1 + idBytes));
    at = nul + 1 + idBytes;
  }
  return out;
}

/**
 * The objects the remote lacks for `tips`: every object this process made that the tips reach,
 * except what the remote's refs already reach. What this process did not make is taken to be on
 * the remote already (it came from there); receive-pack's connectivity check says so if it is not
 * ("missing necessary objects"), and the push is then left to git.
 */
export function objectsToSend(tips: string[], remote: Set<string>): MadeObject[] {
  const idBytes = 20;
  // What the remote's refs reach, as far as this process knows it: their commits' trees, walked.
  const known = new Set<string>();
  const walkKnown = (id: string): void => {
    if (known.has(id)) return;
    known.add(id);
    const o = madeObject(id);
    if (!o) return;
    if (o.type === "commit") walkKnown(commitLinks(o.body).tree);
    else if (o.type === "tree") for (const link of treeLinks(o.body, idBytes)) walkKnown(link);
  };
  for (const id of remote) walkKnown(id);
  const send = new Map<string, MadeObject>();
  const walk = (id: string, tip: boolean): void => {
    if (known.has(id) || send.has(id)) return;
    const o = madeObject(id);
    if (!o) {
      // A new tip this process did not make: git knows how to find its objects; this does not.
      if (tip) throw new UseGit(`${id} was not made by this process`);
      return;
    }
    send.set(id, o);
    if (o.type === "commit") {
      const { tree, parents } = commitLinks(o.body);
      walk(tree, false);
      for (const p of parents) walk(p, false);
    } else if (o.type === "tree") for (const link of treeLinks(o.body, idBytes)) walk(link, false);
  };
  for (const tip of tips) walk(tip, true);
  return [...send.values()];
}

/** The request body: commands, a flush, and (unless every command deletes) the pack. */
function requestBody(moves: HttpMove[], caps: string[], pack: Buffer | null): Buffer {
  const parts: Buffer[] = moves.map((m, i) => {
    const command = `${m.expected ?? ZERO} ${m.commit ?? ZERO} ${m.ref}`;
    return pktLine(i === 0 ? `${command}\0${caps.join(" ")}` : command);
  });
  parts.push(FLUSH);
  if (pack && moves.some((m) => m.commit !== null)) parts.push(pack);
  return Buffer.concat(parts);
}

/**
 * How a push other than a record's is made (the Lane's branch, ADR 0478): the advertisement read
 * already, and the pack made elsewhere (one `git pack-objects`) for the moves that go.
 */
export interface HttpPushWays {
  advertisement?: Advertisement;
  /** The pack for `wanted`, given what the remote has (its refs' values and `.have`s). Throws UseGit when it cannot. */
  pack?: (wanted: HttpMove[], onRemote: Set<string>, adv: Advertisement) => Promise<Buffer>;
}

interface Report {
  unpack: string;
  refs: Map<string, { ok: true } | { ok: false; reason: string }>;
  progress: string;
}

/** receive-pack's report-status, inside side-band-64k's band 1 when that was asked for. */
function readReport(answer: Buffer, sideBand: boolean): Report {
  let lines = readPktLines(answer);
  let progress = "";
  if (sideBand) {
    const bands = demuxSideBand(lines);
    if (bands.fatal) throw new UseGit(`the remote's fatal error: ${bands.fatal.trim().slice(0, 200)}`);
    progress = bands.progress;
    lines = readPktLines(bands.data);
  }
  const texts = lines.filter((l): l is Buffer => l !== null).map(pktText);
  const unpack = /^unpack (.*)$/.exec(texts[0] ?? "")?.[1];
  if (unpack === undefined) throw new MalformedPkt("no unpack status");
  const refs: Report["refs"] = new Map();
  for (const text of texts.slice(1)) {
    const ok = /^ok (\S+)$/.exec(text);
    const ng = /^ng (\S+)(?: (.*))?$/.exec(text);
    if (ok) refs.set(ok[1]!, { ok: true });
    else if (ng) refs.set(ng[1]!, { ok: false, reason: ng[2] ?? "" });
    else throw new MalformedPkt(`not a status line: ${JSON.stringify(text.slice(0, 80))}`);
  }
  return { unpack, refs, progress };
}

/** Words as `git push` shows them, so the refusal readers (push-refusal.ts) read them alike. */
function asGitSaid(report: Report, moves: HttpMove[]): string {
  const remote = report.progress
    .split(/\r?\n|\r/)
    .filter((l) => l.trim())
    .map((l) => `remote: ${l}`);
  const refs = moves.map((m) => {
    const status = report.refs.get(m.ref);
    const src = m.commit ?? "";
    if (!status) return `!\t${src}:${m.ref}\t[remote failure] (no status reported)`;
    return status.ok ? `\t${src}:${m.ref}\t[ok]` : `!\t${src}:${m.ref}\t[remote rejected] (${status.reason})`;
  });
  return [...remote, ...refs].join("\n");
}

/**
 * Moves `moves` (several: all or none, receive-pack's `atomic`) from this process. Throws UseGit
 * when git should make this push instead; GitHttpFailure when the remote answered with an HTTP error.
 */
export async function pushOverHttp(client: SmartHttpClient, moves: HttpMove[], ways: HttpPushWays = {}): Promise<HttpPushOutcome> {
  const adv = ways.advertisement ?? (await client.advertise("receive-pack"));
  const format = adv.caps.get("object-format");
  if (format !== undefined && format !== "sha1") throw new UseGit(`the remote's object format is ${format}`);
  if (!adv.caps.has("report-status")) throw new UseGit("receive-pack offers no report-status");
  if (moves.some((m) => m.commit === null) && !adv.caps.has("delete-refs")) throw new UseGit("receive-pack offers no delete-refs");
  if (moves.length > 1 && !adv.caps.has("atomic")) throw new UseGit("receive-pack offers no atomic push");
  const before = refValues(adv);
  // As --force-with-lease: a ref that is not where this process expects it moves nowhere.
  if (!leasesHold(before, moves)) return { outcome: "lost" };
  // Already where it should be ("Everything up-to-date"): nothing to say about it.
  const wanted = moves.filter((m) => m.commit !== m.expected);
  if (wanted.length === 0) return { outcome: "pushed" };

  const onRemote = new Set([...before.values(), ...adv.haves]);
  const pack = !wanted.some((m) => m.commit !== null)
    ? null
    : ways.pack
      ? await ways.pack(wanted, onRemote, adv)
      : buildPack(
          objectsToSend(
            wanted.flatMap((m) => (m.commit !== null && !onRemote.has(m.commit) ? [m.commit] : [])),
            onRemote,
          ),
          "sha1",
        );
  const sideBand = adv.caps.has("side-band-64k");
  const caps = ["report-status", ...(sideBand ? ["side-band-64k"] : []), ...(adv.caps.has("quiet") ? ["quiet"] : []), ...(wanted.length > 1 ? ["atomic"] : [])];
  caps.push("agent=ticket-runner");
  const answer = await client.rpc("receive-pack", requestBody(wanted, caps, pack));

  let report: Report;
  try {
    report = readReport(answer, sideBand);
  } catch (e) {
    if (!(e instanceof MalformedPkt || e instanceof UseGit)) throw e;
    return afterTheUnknown(client, wanted, e.message);
  }
  // "unpack index-pack abnormal exit", say: the pack was not taken, so nothing moved.
  if (report.unpack !== "ok") throw new UseGit(`receive-pack could not unpack: ${report.unpack}`);
  const statuses = wanted.map((m) => report.refs.get(m.ref));
  if (statuses.every((s) => s?.ok)) return { outcome: "pushed" };
  if (statuses.some((s) => s && !s.ok && /missing necessary objects/.test(s.reason))) {
    return afterTheUnknown(client, wanted, "the remote lacks objects this process did not send");
  }
  if (statuses.some((s) => s === undefined)) return afterTheUnknown(client, wanted, "a ref with no status");
  // Refused: a refused ref no longer where its lease expected it is a lost race; anything else is
  // the remote's refusal. (A ref reported ok did move: git 2.39's receive-pack applies the rest of
  // an atomic push when it refuses a hidden ref before the transaction.)
  const refused = wanted.filter((m) => report.refs.get(m.ref)?.ok === false);
  if (!leasesHold(refValues(await client.advertise("receive-pack")), refused)) return { outcome: "lost" };
  return { outcome: "refused", said: asGitSaid(report, wanted) };
}

/**
 * After a request whose outcome does not read: the refs say it. Every ref at its new value:
 * pushed; any ref elsewhere than expected: lost; all still as expected: nothing moved, git tries.
 */
async function afterTheUnknown(client: SmartHttpClient, moves: HttpMove[], why: string): Promise<HttpPushOutcome> {
  const now = refValues(await client.advertise("receive-pack"));
  if (moves.every((m) => (now.get(m.ref) ?? null) === m.commit)) return { outcome: "pushed" };
  if (!leasesHold(now, moves)) return { outcome: "lost" };
  throw new UseGit(why);
}
