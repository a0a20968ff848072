/**
 * git's smart HTTP protocol spoken from this process (ADR 0470; gitprotocol-http(5), protocol v0):
 * a ref advertisement (`GET <url>/info/refs?service=git-<service>`) and one request to the service
 * (`POST <url>/git-<service>`). The Authorization header goes to the Run's computed URL only (ADR
 * 0150): a redirect is an error, never followed. Every message leaving here is redacted.
 */
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Failure } from "../../core/errors";
import type { FailureReason } from "../../core/errors";
import { MalformedPkt, pktText, readPktLines } from "./pkt-line";

export type SmartService = "upload-pack" | "receive-pack";

/** A ref advertisement (v0) read whole. */
export interface Advertisement {
  /** Every advertised line in order, `<ref>^{}` peeled lines included (as `git ls-remote` prints them). */
  refs: [string, string][];
  /** The first line's capabilities: name -> value ("" for a bare name). */
  caps: Map<string, string>;
  /** Object ids the remote has without a ref here (`.have` lines: its alternates). */
  haves: string[];
}

/** A failed request to the remote: `status` is the HTTP status, null when no answer came. */
export class GitHttpFailure extends Failure {
  constructor(
    reason: FailureReason,
    message: string,
    readonly status: number | null,
  ) {
    super(reason, message);
  }
}

/** Something `git` itself can handle and this client does not: the caller runs git instead. */
export class UseGit extends Error {
  override readonly name = "UseGit";
  /** `sticky`: git talks to this remote for the rest of the process (a TLS handshake that failed here). */
  constructor(
    message: string,
    readonly sticky = false,
  ) {
    super(message);
  }
}

/** Answers larger than this are left to git (an advertisement of very many refs, say). */
const MAX_ANSWER = 64 * 1024 * 1024;
/** git sends this user agent's family; GitHub serves smart HTTP to it. */
const USER_AGENT = "git/2.39 (ticket-runner)";
/** TLS failures git may not share (its CA store is the system's, Node's its own): git then tries. */
const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

export interface SmartHttpOptions {
  /** The repository's URL without credentials (http: or https:). */
  url: string;
  /** The whole `Authorization` header value, or null. */
  authorization: string | null;
  /** A request with no progress this long is abandoned. */
  idleMs: number;
  redact: (text: string) => string;
}

export class SmartHttpClient {
  constructor(private readonly opts: SmartHttpOptions) {}

  /** The remote's URL, as messages may name it. */
  get url(): string {
    return this.opts.url;
  }

  async advertise(service: SmartService): Promise<Advertisement> {
    const answer = await this.send("GET", `info/refs?service=git-${service}`, null, {
      Accept: "*/*",
      Pragma: "no-cache",
    });
    // A dumb server (or anything else) answers with another type: git knows what to do with those.
    if (answer.type !== `application/x-git-${service}-advertisement`) throw new UseGit(`info/refs answered ${answer.type || "no content type"}`);
    try {
      return parseAdvertisement(answer.body, service);
    } catch (e) {
      if (e instanceof MalformedPkt) throw new UseGit(`an advertisement that does not read: ${e.message}`);
      throw e;
    }
  }

  async rpc(service: SmartService, body: Buffer): Promise<Buffer> {
    const answer = await this.send("POST", `git-${service}`, body, {
      "Content-Type": `application/x-git-${service}-request`,
      Accept: `application/x-git-${service}-result`,
    });
    if (answer.type !== `application/x-git-${service}-result`) throw new UseGit(`git-${service} answered ${answer.type || "no content type"}`);
    return answer.body;
  }

  private send(method: "GET" | "POST", path: string, body: Buffer | null, headers: Record<string, string>): Promise<{ type: string; body: Buffer }> {
    const url = new URL(`${this.opts.url.replace(/\/+$/, "")}/${path}`);
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    const all: Record<string, string> = { "User-Agent": USER_AGENT, ...headers };
    if (this.opts.authorization) all.Authorization = this.opts.authorization;
    if (body) all["Content-Length"] = String(body.length);
    return new Promise((resolve, reject) => {
      const req = request(url, { method, headers: all }, (res) => {
        void this.read(res, method, url).then(resolve, (e: unknown) => {
          // The answer broke off (a reset, the idle limit): no answer, as when none came.
          if (e instanceof UseGit || e instanceof GitHttpFailure) reject(e);
          else reject(this.unreachable(method, url, e));
        });
      });
      req.setTimeout(this.opts.idleMs, () => req.destroy(new IdleTimeout()));
      req.on("error", (e: NodeJS.ErrnoException) => {
        if (method === "GET" && TLS_CODE.test(e.code ?? "")) {
          reject(new UseGit(`TLS: ${e.code ?? ""}`, true));
          return;
        }
        reject(this.unreachable(method, url, e));
      });
      req.end(body ?? undefined);
    });
  }

  private unreachable(method: string, url: URL, e: unknown): GitHttpFailure {
    const err = e as NodeJS.ErrnoException;
    const why = e instanceof IdleTimeout ? `no answer for ${this.opts.idleMs} ms` : err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? e);
    return new GitHttpFailure(
      "network",
      this.opts.redact(`Could not reach the remote ${this.opts.url} (${method} ${url.pathname}): ${why}. Check the network, then run again.`),
      null,
    );
  }

  private async read(res: IncomingMessage, method: string, url: URL): Promise<{ type: string; body: Buffer }> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ANSWER) {
        res.destroy();
        throw new UseGit(`an answer over ${MAX_ANSWER} bytes`);
      }
      chunks.push(chunk);
    }
    const status = res.statusCode ?? 0;
    const type = String(res.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    const body = Buffer.concat(chunks);
    if (status === 200) return { type, body };
    const said = type.startsWith("text/") ? body.toString("utf8").trim().slice(0, 300) : "";
    throw this.statusFailure(status, method, url, said, res.headers.location);
  }

  private statusFailure(status: number, method: string, url: URL, said: string, location: string | undefined): GitHttpFailure {
    const where = `${method} ${url.pathname}${url.search}`;
    const quoted = said ? ` ("${said}")` : "";
    let text: string;
    if (status >= 300 && status < 400) {
      text = `The remote ${this.opts.url} answered ${where} with a redirect (HTTP ${status}) to ${location ?? "nowhere"}. Ticket Runner sends its token only to the URL it computed and follows no redirect: point the Target at the repository's real URL, then run again.`;
    } else if (status === 401) {
      text = `The remote ${this.opts.url} did not accept the token (HTTP 401${quoted} for ${where}). Set TICKET_RUNNER_TOKEN to a valid token for this repository, then run again.`;
    } else if (status === 403) {
      text = `The remote ${this.opts.url} refused the token (HTTP 403${quoted} for ${where}). Give the token write access to this repository's contents (or use one that has it), then run again.`;
    } else if (status === 404) {
      text = `The remote ${this.opts.url} has no such repository, or the token may not see it (HTTP 404${quoted} for ${where}). Check the Target's owner/name and the token's access to it, then run again.`;
    } else {
      text = `The remote ${this.opts.url} failed (HTTP ${status}${quoted} for ${where}). It is likely passing: run again in a moment.`;
    }
    return new GitHttpFailure(status >= 500 ? "network" : "git", this.opts.redact(text), status);
  }
}

class IdleTimeout extends Error {
  override readonly name = "IdleTimeout";
}

/**
 * A v0 ref advertisement (gitprotocol-http(5), "Smart Clients"; gitprotocol-pack(5), "Reference
 * Discovery"): `# service=git-<name>` and a flush, then `<oid> <ref>\0<capabilities>` and one
 * `<oid> <ref>` a line up to a flush. An empty repository advertises `<zero-id> capabilities^{}`.
 */
export function parseAdvertisement(body: Buffer, service: SmartService): Advertisement {
  const lines = readPktLines(body);
  let at = 0;
  const first = lines[0];
  if (first && pktText(first) === `# service=git-${service}`) {
    at = 1;
    if (lines[at] !== null) throw new MalformedPkt("no flush after the service line");
    at++;
  }
  const refs: [string, string][] = [];
  const haves: string[] = [];
  let caps: Map<string, string> | null = null;
  for (; at < lines.length; at++) {
    const line = lines[at];
    if (line === null || line === undefined) break;
    let text = pktText(line);
    if (caps === null) {
      const nul = text.indexOf("\0");
      if (nul < 0) throw new MalformedPkt("the first line has no capabilities");
      caps = new Map(
        text
          .slice(nul + 1)
          .split(" ")
          .filter(Boolean)
          .map((c): [string, string] => {
            const eq = c.indexOf("=");
            return eq < 0 ? [c, ""] : [c.slice(0, eq), c.slice(eq + 1)];
          }),
      );
      text = text.slice(0, nul);
    }
    if (text.startsWith("shallow ")) continue;
    const m = /^([0-9a-f]{40}|[0-9a-f]{64}) (.+)$/.exec(text);
    if (!m) throw new MalformedPkt(`not a ref line: ${JSON.stringify(text.slice(0, 80))}`);
    if (m[2] === "capabilities^{}") continue;
    if (m[2] === ".have") haves.push(m[1]!);
    else refs.push([m[2]!, m[1]!]);
  }
  // An advertisement with no line at all (an empty repository, as some servers say it): no refs, no capabilities.
  return { refs, caps: caps ?? new Map(), haves };
}
