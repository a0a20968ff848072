/**
 * Git smart HTTP at /{owner}/{repo}.git, served by the real `git upload-pack` and `git
 * receive-pack`, as `git http-backend` would run them (../smart-http.ts, ADR 0391); a push
 * receive-pack would take without a word is taken in this process (../receive-in-process.ts, ADR 0482).
 * Auth follows GitHub: public repos clone anonymously; pushing needs a token with write access,
 * sent as basic auth (`x-access-token:<token>`); a 401 carries WWW-Authenticate so git asks.
 */
import { promises as fsp } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { spawnStreamed } from "../../adapters/spawner/streamed-process";
import { removeFile } from "../../adapters/remove-file";
import type { App, RefUpdate } from "../app";
import { canRead, hasRole, tokenFrom } from "../auth";
import { RECEIVE_PACK_CONFIG, configEnv, gitEnv, gitExecPath, listRefs } from "../git";
import { repoKey } from "../model";
import type { RepoRec } from "../model";
import { unmarkConnected } from "../objects-connected";
import { pushRules } from "../push-rules";
import { receiveInProcess } from "../receive-in-process";
import { readPushCommands, updatedRefs } from "../push-commands";
import type { PushCommand, PushRequest } from "../push-commands";
import { maintainAfterPush, onPushed } from "../pushes";
import { advertisementPreamble, answerHeaders, inflateFile, isGzip, isV2, protocolVersion, routeOf, serviceArgs } from "../smart-http";
import type { Service } from "../smart-http";
import { serviceStarted } from "../service-watch";
import { spoolBody, spoolPath } from "../spool";
import { MAX_FETCH_REQUEST } from "../upload-pack-in-process";
import { MAX_LS_REFS_REQUEST } from "../upload-pack-refs";
import type { SpooledBody } from "../spool";

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
  const route = routeOf(req.method ?? "GET", rest, service, req.headers["content-type"] ?? "");
  if (!route) return plain(res, 404, "Only the smart HTTP protocol is served here.");
  if (route.kind === "refuse") {
    res.writeHead(route.status, route.headers);
    res.end(route.body);
    return route.status;
  }
  // What a push changed: from its commands and receive-pack's own report (ADR 0432), else from a
  // listing of every ref before and after.
  const push: Push | null = route.kind === "rpc" && route.service === "receive-pack" ? { request: null, before: null, answer: [], answered: 0 } : null;
  const beforeService = push
    ? async (body: SpooledBody): Promise<void> => {
        push.request = await readPushCommands(body.path).catch(() => null);
        if (!push.request) push.before = await listRefs(app.gitDir(repo));
      }
    : null;
  const status = await runService(app, req, res, repo, route, rest, query, login ?? "anonymous", beforeService, push);
  // The response stays open until the push's effects (PR heads, CI, closed issues) are recorded,
  // so a client that reads the API right after `git push` returns sees them.
  try {
    if (push && (push.request || push.before)) await afterPush(app, repo, push, login ?? "anonymous");
  } finally {
    res.end();
  }
  if (push) maintainAfterPush(app, repo);
  return status;
}

/** One push on its way: its commands (or every ref before it), and receive-pack's answer as it went out. */
interface Push {
  request: PushRequest | null;
  before: Map<string, string> | null;
  answer: Buffer[];
  /** Bytes of the answer; past ANSWER_KEPT none is kept, and the refs are looked at instead. */
  answered: number;
}

const ANSWER_KEPT = 1024 * 1024;

async function afterPush(app: App, repo: RepoRec, push: Push, login: string): Promise<void> {
  const updates = push.request ? await commandsApplied(app, repo, push, push.request) : await refsChanged(app, repo, push.before!);
  if (updates.length) await onPushed(app, repo, updates, login);
}

/** The commands receive-pack reports done; with no report that reads whole, those whose ref is now at the command's new value. */
async function commandsApplied(app: App, repo: RepoRec, push: Push, request: PushRequest): Promise<RefUpdate[]> {
  const reported = push.answered <= ANSWER_KEPT ? updatedRefs(Buffer.concat(push.answer), request.sideBand) : null;
  const now = reported
    ? null
    : await listRefs(
        app.gitDir(repo),
        request.commands.map((c) => c.ref),
      );
  const done = (c: PushCommand): boolean => (reported ? reported.has(c.ref) : (now!.get(c.ref) ?? null) === c.new);
  return request.commands.filter((c) => c.old !== c.new && done(c)).map((c) => ({ ref: c.ref, before: c.old, after: c.new }));
}

async function refsChanged(app: App, repo: RepoRec, before: Map<string, string>): Promise<RefUpdate[]> {
  const after = await listRefs(app.gitDir(repo));
  const updates: RefUpdate[] = [];
  for (const [ref, sha] of after) if (before.get(ref) !== sha) updates.push({ ref, before: before.get(ref) ?? null, after: sha });
  for (const [ref, sha] of before) if (!after.has(ref)) updates.push({ ref, before: sha, after: null });
  return updates;
}

async function runService(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  repo: RepoRec,
  route: { kind: "advertise" | "rpc"; service: Service },
  rest: string,
  query: string,
  remoteUser: string,
  beforeService: ((body: SpooledBody) => Promise<void>) | null,
  push: Push | null,
): Promise<number> {
  // The environment http-backend's CGI request gave the service (it passed its own on): the
  // service's hooks, and the tests that find the sandbox's git processes, read it.
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
  let hook = true;
  if (route.kind === "rpc" && route.service === "receive-pack") {
    const rules = await pushRules(app, repo, remoteUser);
    Object.assign(env, rules.env, configEnv([...rules.config, ...RECEIVE_PACK_CONFIG]));
    hook = rules.hook;
  }
  const encoding = req.headers["content-encoding"];
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env.GIT_PROTOCOL = protocol;

  // The whole body first (see spool.ts): git never sees a body that ends early. A client that
  // vanished before its body ended is dropped here, before any git process exists.
  const body = route.kind === "rpc" ? await spoolBody(req, app.spoolDir) : null;
  if (route.kind === "rpc" && !body) return 499;
  const inflated = body && isGzip(encoding) ? await inflatedBody(app, body) : body;
  try {
    if (body && !inflated) return plain(res, 400, "The request body is not valid gzip.");
    if (inflated) env.CONTENT_LENGTH = String(inflated.size);
    if (inflated && beforeService) await beforeService(inflated);
    if (push && inflated && !app.stopping) {
      const answer = await receivePush(app, app.gitDir(repo), inflated, push, hook);
      if (answer) {
        res.writeHead(200, answerHeaders(route));
        res.write(answer);
        return 200;
      }
    }
    if (route.kind === "rpc" && route.service === "upload-pack" && inflated && protocolVersion(env.GIT_PROTOCOL) === 0 && !app.stopping) {
      const packed = await fetchInProcess(app, app.gitDir(repo), inflated);
      if (packed) {
        res.writeHead(200, answerHeaders(route));
        res.write(packed);
        return 200;
      }
    }
    if (route.kind === "rpc" && route.service === "upload-pack" && inflated && isV2(env.GIT_PROTOCOL) && !app.stopping) {
      const listed = await lsRefsInProcess(app, app.gitDir(repo), inflated);
      if (listed) {
        res.writeHead(200, answerHeaders(route));
        res.write(listed);
        return 200;
      }
    }
    if (route.kind === "advertise") {
      const kept = app.stopping ? null : await advertisementInProcess(app, app.gitDir(repo), route.service, env.GIT_PROTOCOL);
      if (kept) {
        res.writeHead(200, answerHeaders(route));
        res.write(Buffer.concat([advertisementPreamble(route.service, env.GIT_PROTOCOL), kept]));
        return 200;
      }
    }
    const preamble = route.kind === "advertise" ? advertisementPreamble(route.service, env.GIT_PROTOCOL) : Buffer.alloc(0);
    return await serveFromService(app, res, app.gitDir(repo), route, env, inflated, preamble, await gitExecPath(), push);
  } finally {
    await Promise.all([body?.remove(), inflated?.remove()]);
  }
}

/**
 * A push taken in this process (ADR 0482): its answer, kept for afterPush as receive-pack's would
 * be; null: receive-pack takes it. Before a receive-pack that may take a pack index-pack has not
 * checked, the repository is no longer known connected (objects-connected.ts).
 */
async function receivePush(app: App, gitDir: string, body: SpooledBody, push: Push, hook: boolean): Promise<Buffer | null> {
  const request = push.request;
  const outcome = request
    ? await receiveInProcess({ gitDir, body, request, setup: await app.receiveSetups.setup(gitDir), hook, commits: app.commits, objects: app.objects })
    : { answer: null, packChecked: false };
  if (outcome.answer) {
    push.answer.push(outcome.answer);
    push.answered = outcome.answer.length;
    return outcome.answer;
  }
  const bringsPack = !request || request.commands.some((c) => c.new !== null);
  if (bringsPack && !outcome.packChecked) await unmarkConnected(gitDir);
  return null;
}

/**
 * A ref advertisement with no process: upload-pack's v2 capability list as upload-pack wrote it,
 * kept per repository (ADR 0474); receive-pack's refs (ADR 0474) and upload-pack's v0/v1 refs (ADR
 * 0479), written from the repository's refs. Null: the service answers.
 */
function advertisementInProcess(app: App, gitDir: string, service: Service, gitProtocol: string | undefined): Promise<Buffer | null> {
  if (service === "receive-pack") return app.receivePackAdvertisements.advertisement(gitDir, gitProtocol);
  return isV2(gitProtocol) ? app.v2Capabilities.advertisement(gitDir) : app.uploadPackRefs.advertisement(gitDir, gitProtocol);
}

/** A protocol v2 `command=ls-refs` request answered from the refs (ADR 0479); null: upload-pack answers (a fetch, anything not modelled). */
async function lsRefsInProcess(app: App, gitDir: string, body: SpooledBody): Promise<Buffer | null> {
  // A larger body is no ls-refs request of git's (a fetch): not read.
  if (body.size > MAX_LS_REFS_REQUEST) return null;
  const request = await fsp.readFile(body.path).catch(() => null);
  return request ? app.uploadPackRefs.lsRefs(gitDir, request) : null;
}

/** A protocol v0 fetch in the Runs' own shape answered in this process (ADR 0487); null: upload-pack answers. */
async function fetchInProcess(app: App, gitDir: string, body: SpooledBody): Promise<Buffer | null> {
  // A larger body is no request of the Runs' (upload-pack-in-process.ts): not read.
  if (body.size > MAX_FETCH_REQUEST) return null;
  const request = await fsp.readFile(body.path).catch(() => null);
  return request ? app.uploadPacks.answer(gitDir, request) : null;
}

/** The body inflated into a spool file of its own, or null when it is not gzip. */
async function inflatedBody(app: App, body: SpooledBody): Promise<SpooledBody | null> {
  const to = spoolPath(app.spoolDir);
  const remove = (): Promise<void> => removeFile(to);
  try {
    await inflateFile(body.path, to);
  } catch {
    await remove();
    return null;
  }
  const { size } = await fsp.stat(to);
  return { path: to, size, remove };
}

/**
 * Runs the service on a body it can read to the end, and relays its answer. Once the body is in,
 * the request is served to its end (as GitHub applies a push it received whole), even if the
 * client has gone meanwhile: its output is then read and dropped.
 */
function serveFromService(
  app: App,
  res: ServerResponse,
  gitDir: string,
  route: { kind: "advertise" | "rpc"; service: Service },
  env: Record<string, string>,
  body: SpooledBody | null,
  preamble: Buffer,
  execPath: string,
  push: Push | null,
): Promise<number> {
  // stop() may have ended every group while this body was read: start no new one.
  if (app.stopping) return Promise.resolve(plain(res, 503, "The sandbox is stopping."));
  return new Promise((resolve) => {
    // Started by the spawner, a small process, not forked from this big one (ADR 0391); in its own
    // process group, so stop() and the exit handler end receive-pack and its hooks with it. When
    // this process dies, the service is left to finish: it has its whole body (ADR 0190). git's
    // exec path heads PATH, as under `git http-backend`, so it and its hooks find the same programs.
    const full = gitEnv(env);
    serviceStarted(serviceArgs(route));
    const child = spawnStreamed({
      kind: "git",
      command: "git",
      args: serviceArgs(route),
      cwd: gitDir,
      env: { ...full, PATH: full.PATH ? `${execPath}${path.delimiter}${full.PATH}` : execPath },
      input: null,
      ...(body ? { stdinFile: body.path } : {}),
      outlivesCaller: true,
    });
    app.gitGroups.add(child);
    child.once("spawn", () => {
      // The service has the body open from here on: off the disk with it at once.
      void body?.remove();
      if (res.destroyed) return;
      res.writeHead(200, answerHeaders(route));
      if (preamble.length) res.write(preamble);
    });
    child.stdout.on("data", (chunk: Buffer) => {
      if (push) {
        push.answered += chunk.length;
        if (push.answered <= ANSWER_KEPT) push.answer.push(chunk);
      }
      if (!res.destroyed) res.write(chunk);
    });
    child.stderr.on("data", () => undefined);
    child.once("error", () => {
      if (!res.headersSent) plain(res, 500, `git ${route.service} could not start`);
      resolve(500);
    });
    // "close", not "exit": receive-pack's helpers hold the pipes after it is gone.
    child.once("close", () => resolve(200));
  });
}
