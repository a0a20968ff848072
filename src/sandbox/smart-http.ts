/**
 * The four smart HTTP requests git sends, answered as git 2.39's `git http-backend` answers them
 * (http-backend.c: get_info_refs, service_rpc, run_service), without starting it (ADR 0391): it is
 * a program between the sandbox and the one that does the work (upload-pack or receive-pack), and
 * costs as much CPU as that one. What it adds is here: the route and its method, the request's
 * content type, the headers of the answer, the `# service=` line before a v0/v1 advertisement,
 * and a gzip body inflated. The service itself writes every byte of the answer's body.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";

export type Service = "upload-pack" | "receive-pack";

/** What http-backend's route table says of a request: a service to run, or the answer it gives instead. */
export type Route =
  | { kind: "advertise"; service: Service }
  | { kind: "rpc"; service: Service }
  | { kind: "refuse"; status: number; headers: Record<string, string>; body: string };

const NO_CACHE = {
  expires: "Fri, 01 Jan 1980 00:00:00 GMT",
  pragma: "no-cache",
  "cache-control": "no-cache, max-age=0, must-revalidate",
};

/** A route's path with the other method: "400 Bad Request", no body (http-backend's bad_request). */
const BAD_METHOD: Route = { kind: "refuse", status: 400, headers: NO_CACHE, body: "" };

function serviceOf(name: string | null): Service | null {
  return name === "git-upload-pack" ? "upload-pack" : name === "git-receive-pack" ? "receive-pack" : null;
}

/** `rest` is the path after `<repo>.git`; `service` the `service` query parameter. Null: not a smart HTTP request. */
export function routeOf(method: string, rest: string, serviceParam: string | null, contentType: string): Route | null {
  if (rest === "/info/refs") {
    const service = serviceOf(serviceParam);
    if (!service) return null;
    if (method !== "GET" && method !== "HEAD") return BAD_METHOD;
    return { kind: "advertise", service };
  }
  const service = serviceOf(rest.slice(1));
  if (!service) return null;
  if (method !== "POST") return BAD_METHOD;
  const expected = `application/x-git-${service}-request`;
  if (contentType !== expected) {
    return { kind: "refuse", status: 415, headers: NO_CACHE, body: `Expected POST with Content-Type '${expected}', but received '${contentType}' instead.\n` };
  }
  return { kind: "rpc", service };
}

/** The service's arguments, run in the repository (http-backend's `enter_repo`). */
export function serviceArgs(route: { kind: "advertise" | "rpc"; service: Service }): string[] {
  return [route.service, route.kind === "advertise" ? "--http-backend-info-refs" : "--stateless-rpc", "."];
}

/** The headers of the answer (200). */
export function answerHeaders(route: { kind: "advertise" | "rpc"; service: Service }): Record<string, string> {
  const type = route.kind === "advertise" ? "advertisement" : "result";
  return { ...NO_CACHE, "content-type": `application/x-git-${route.service}-${type}` };
}

/**
 * The protocol version asked for: the highest `version=N` in GIT_PROTOCOL, as
 * determine_protocol_version_server reads it (a version it does not know, "3", is no version).
 */
export function protocolVersion(gitProtocol: string | undefined): number {
  let version = 0;
  for (const item of (gitProtocol ?? "").split(":")) {
    const m = /^version=([012])$/.exec(item);
    if (m) version = Math.max(version, Number(m[1]));
  }
  return version;
}

/** Protocol v2 asked for. */
export function isV2(gitProtocol: string | undefined): boolean {
  return protocolVersion(gitProtocol) === 2;
}

/** One pkt-line: its length in bytes (four hex digits, the four included), then the text. */
export function pktLine(text: string): Buffer {
  const body = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, "0")), body]);
}

/** What goes before the service's own advertisement: `# service=git-<name>` and a flush, except under v2. */
export function advertisementPreamble(service: Service, gitProtocol: string | undefined): Buffer {
  if (isV2(gitProtocol)) return Buffer.alloc(0);
  return Buffer.concat([pktLine(`# service=git-${service}\n`), Buffer.from("0000")]);
}

/** A gzip body (`Content-Encoding: gzip` or `x-gzip`, which git sends for large fetch requests) inflated into `to`. */
export function isGzip(encoding: string | undefined): boolean {
  return encoding === "gzip" || encoding === "x-gzip";
}

export async function inflateFile(from: string, to: string): Promise<void> {
  await pipeline(createReadStream(from), createGunzip(), createWriteStream(to, { flags: "wx" }));
}
