/**
 * What the GitHub oracle checks (test/integration/github/oracle*.test.ts): the GraphQL documents and
 * REST answers a client saw, mapped back to the routes the adapters name, and checked against
 * GitHub's schema (github-reference.ts) and OpenAPI description (openapi-reference.ts). Two ways to
 * see them: a hook on the product's own client in this process, or a recording proxy in front of the
 * sandbox for a separate process (`ticket-runner run`), which sends what it sends with no hook of ours.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { checkDocument } from "./github-reference";
import { checkResponse } from "./openapi-reference";

export interface Seen {
  graphql: { query: string; variables: Record<string, unknown> }[];
  rest: { route: string; status: number; body: unknown; headers: Record<string, unknown> }[];
}

/**
 * Where the sandbox's answers knowingly differ from GitHub's description, and why that is harmless;
 * each is a row of the fidelity table in docs/sandbox.md. A problem matching none of these fails.
 */
export const KNOWN_DIFFERENCES: { problem: RegExp; why: string }[] = [
  {
    problem:
      /^(GET|POST|PATCH) \/repos\/\{owner\}\/\{repo\}\/pulls(\/\{pull_number\})? 20[01]: \(body\) must have required property '(additions|deletions|changed_files|commits)'/,
    why: "A pull request's diff statistics are not counted (it would take a git diff per answer); Ticket Runner never reads them.",
  },
];

let routes: Set<string> | null = null;

/** Every REST route the GitHub adapters name ("GET /repos/{owner}/{repo}/issues", ...). */
export function routesInSource(): Set<string> {
  if (routes) return routes;
  const dir = join(__dirname, "..", "..", "src", "adapters", "github");
  routes = new Set<string>();
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), "utf8");
    for (const m of text.matchAll(/"((?:GET|POST|PUT|PATCH|DELETE) \/[^"\s]*)"/g)) routes.add(m[1]!);
  }
  return routes;
}

/** An expanded URL (paginate's, GitHub's `Link` URLs, what reaches a proxy) mapped back to the route it came from. */
export function templateOf(method: string, url: string): string {
  if (url.includes("{")) return `${method} ${url}`;
  const path = new URL(url, "http://x").pathname;
  for (const route of routesInSource()) {
    const [m, template] = route.split(" ");
    if (m !== method) continue;
    if (new RegExp(`^${template!.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path) || new RegExp(`^/api/v3${template!.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
      return route;
  }
  return `${method} ${path}`;
}

/** Every problem GitHub's schema finds in the documents seen. */
export function graphqlProblems(seen: Seen): string[] {
  return seen.graphql.flatMap((d) => checkDocument(d.query, d.variables).map((p) => `${p}\n  in: ${d.query.replace(/\s+/g, " ").slice(0, 200)}`));
}

/** Every problem GitHub's OpenAPI description finds in the REST answers seen, known differences left out. */
export function restProblems(seen: Seen): string[] {
  return seen.rest.flatMap((r) => checkResponse(r.route, r.status, r.body)).filter((p) => !KNOWN_DIFFERENCES.some((k) => k.problem.test(p)));
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    stream.on("data", (c: Buffer) => parts.push(c));
    stream.on("end", () => resolve(Buffer.concat(parts)));
    stream.on("error", reject);
  });
}

function json(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch {
    return undefined;
  }
}

export interface RecordingProxy {
  /** The API root to give the process under test (`TICKET_RUNNER_API_URL`). */
  url: string;
  seen: Seen;
  stop(): Promise<void>;
}

/**
 * An HTTP proxy in front of the sandbox's API: every request is passed on as it came and answered as
 * the sandbox answered, and recorded (GraphQL documents with their variables, REST answers with
 * their status, body and headers). Git's smart HTTP is passed on unrecorded.
 */
export async function startRecordingProxy(apiUrl: string): Promise<RecordingProxy> {
  const target = new URL(apiUrl);
  const seen: Seen = { graphql: [], rest: [] };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const method = (req.method ?? "GET").toUpperCase();
      const path = req.url ?? "/";
      const headers = { ...req.headers, host: target.host };
      const answer = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        const out = httpRequest({ host: target.hostname, port: target.port, method, path, headers }, (r) => {
          readAll(r).then((b) => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: b }), reject);
        });
        out.on("error", reject);
        out.end(body);
      });
      const pathname = new URL(path, "http://x").pathname;
      if (pathname === "/graphql") {
        const sent = json(body) as { query?: unknown; variables?: unknown } | undefined;
        if (typeof sent?.query === "string") seen.graphql.push({ query: sent.query, variables: (sent.variables ?? {}) as Record<string, unknown> });
      } else if (!/\.git\//.test(pathname) && !pathname.startsWith("/_sandbox/")) {
        seen.rest.push({ route: templateOf(method, path), status: answer.status, body: json(answer.body), headers: answer.headers });
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
