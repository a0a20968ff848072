/**
 * Git smart HTTP at /{owner}/{repo}.git, served by the real `git http-backend` (a CGI program).
 * Auth follows GitHub: public repos clone anonymously; pushing needs a token with write access,
 * sent as basic auth (`x-access-token:<token>`); a 401 carries WWW-Authenticate so git asks.
 */
import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { App, RefUpdate } from "../app";
import { canRead, hasRole, tokenFrom } from "../auth";
import { gitEnv, listRefs } from "../git";
import { repoKey } from "../model";
import type { RepoRec } from "../model";
import { pushRuleEnv } from "../push-rules";
import { onPushed } from "../pushes";
import { spoolBody } from "../spool";

const GIT_PATH = /^\/([^/]+)\/([^/]+)\.git(\/.*)?$/;

export function isGitPath(path: string): boolean {
  return GIT_PATH.test(path);
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): number {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  res.end(text + "\n");
  return status;
}

/** Returns the status code it answered with, for the request log. */
export async function handleGitHttp(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
  setUser: (login: string) => void,
): Promise<number> {
  const m = GIT_PATH.exec(path);
  const owner = m?.[1] ?? "";
  const name = m?.[2] ?? "";
  const rest = m?.[3] ?? "/";
  const service = rest === "/info/refs" ? new URLSearchParams(query).get("service") : rest.slice(1);
  if (service !== "git-upload-pack" && service !== "git-receive-pack") {
    return plain(res, 404, "Only the smart HTTP protocol is served here.");
  }
  const repo = app.store.state.repos[repoKey(owner, name)];
  const token = tokenFrom(req);
  const user = token ? app.store.userByToken(token) : undefined;
  const challenge = { "www-authenticate": 'Basic realm="GitHub"' };
  if (token !== null && !user) return plain(res, 401, "Invalid username or token.", challenge);
  if (user) setUser(user.login);
  const login = user?.login ?? null;
  if (!repo || !canRead(repo, login)) {
    return user ? plain(res, 404, "Repository not found.") : plain(res, 401, "Authentication required.", challenge);
  }
  if (service === "git-receive-pack") {
    if (!user) return plain(res, 401, "Authentication required.", challenge);
    if (!hasRole(repo, login, "write")) return plain(res, 403, `Permission to ${repo.owner}/${repo.name}.git denied to ${login}.`);
  }
  const before = service === "git-receive-pack" && rest !== "/info/refs" ? await listRefs(app.gitDir(repo)) : null;
  const status = await runBackend(app, req, res, repo, rest, query, login ?? "anonymous");
  // The response stays open until the push's effects (PR heads, CI, closed issues) are recorded,
  // so a client that reads the API right after `git push` returns sees them.
  try {
    if (before) await afterPush(app, repo, before, login ?? "anonymous");
  } finally {
    res.end();
  }
  return status;
}

async function afterPush(app: App, repo: RepoRec, before: Map<string, string>, login: string): Promise<void> {
  const after = await listRefs(app.gitDir(repo));
  const updates: RefUpdate[] = [];
  for (const [ref, sha] of after) if (before.get(ref) !== sha) updates.push({ ref, before: before.get(ref) ?? null, after: sha });
  for (const [ref, sha] of before) if (!after.has(ref)) updates.push({ ref, before: sha, after: null });
  if (updates.length) await onPushed(app, repo, updates, login);
}

async function runBackend(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  repo: RepoRec,
  rest: string,
  query: string,
  remoteUser: string,
): Promise<number> {
  const env: Record<string, string> = {
    GIT_PROJECT_ROOT: app.reposRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: `/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}.git${rest}`,
    REQUEST_METHOD: req.method ?? "GET",
    QUERY_STRING: query,
    REMOTE_USER: remoteUser,
    REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
  };
  if (rest === "/git-receive-pack") Object.assign(env, await pushRuleEnv(app, repo, remoteUser));
  const encoding = req.headers["content-encoding"];
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env.GIT_PROTOCOL = protocol;

  // The whole body first (see spool.ts): git never sees a body that ends early. A client that
  // vanished before its body ended is dropped here, before any git process exists.
  const body = req.method === "POST" ? await spoolBody(req, app.spoolDir) : null;
  if (req.method === "POST" && !body) return 499;
  if (body) env.CONTENT_LENGTH = String(body.size);
  try {
    return await serveFromBackend(app, res, env, body?.file.fd ?? "ignore");
  } finally {
    await body?.file.close();
  }
}

/**
 * Runs `git http-backend` on a body it can read to the end, and relays its CGI answer. Once the
 * body is in, the request is served to its end (as GitHub applies a push it received whole), even
 * if the client has gone meanwhile: its output is then read and dropped.
 */
function serveFromBackend(app: App, res: ServerResponse, env: Record<string, string>, stdin: number | "ignore"): Promise<number> {
  // stop() may have ended every group while this body was read: start no new one.
  if (app.stopping) return Promise.resolve(plain(res, 503, "The sandbox is stopping."));
  return new Promise((resolve) => {
    // Its own process group, so stop() and the exit handler end receive-pack and its hooks with it.
    const child = spawn("git", ["http-backend"], { env: gitEnv(env), stdio: [stdin, "pipe", "pipe"], detached: true });
    app.gitGroups.add(child);
    const { stdout, stderr } = child;
    if (!stdout || !stderr) throw new Error("git http-backend was spawned without pipes");
    let headerBuf = Buffer.alloc(0);
    let headersDone = false;
    let status = 200;
    const relay = (chunk: Buffer): void => {
      if (!res.destroyed) res.write(chunk);
    };
    stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        relay(chunk);
        return;
      }
      headerBuf = Buffer.concat([headerBuf, chunk]);
      const sep = headerBuf.indexOf("\r\n\r\n");
      const alt = headerBuf.indexOf("\n\n");
      const end = sep >= 0 ? sep : alt;
      if (end < 0) return;
      const headerText = headerBuf.subarray(0, end).toString("latin1");
      const rest = headerBuf.subarray(end + (sep >= 0 ? 4 : 2));
      const headers: Record<string, string> = {};
      for (const line of headerText.split(/\r?\n/)) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue;
        const key = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (key === "status") status = Number(value.split(" ")[0]) || 200;
        else headers[key] = value;
      }
      headersDone = true;
      if (!res.destroyed) res.writeHead(status, headers);
      if (rest.length) relay(rest);
    });
    stderr.on("data", () => undefined);
    child.on("error", () => {
      if (!res.headersSent) plain(res, 500, "git http-backend could not start");
      resolve(500);
    });
    // "close", not "exit": the grandchild (receive-pack) holds the pipes after the leader is gone.
    child.on("close", () => {
      if (!headersDone) {
        if (!res.headersSent && !res.destroyed) plain(res, 500, "git http-backend failed");
        resolve(500);
        return;
      }
      resolve(status);
    });
  });
}
