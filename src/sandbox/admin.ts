/**
 * The admin API under /_sandbox/ (admin token only). Not part of GitHub: it is how tests and the
 * demo set the world up, inject faults and read the request log. Faults never apply here.
 */
import { promises as fsp } from "node:fs";
import * as path from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { App } from "./app";
import { tokenFrom } from "./auth";
import { clockOffset, resetClock, sandboxNow, setClockOffset } from "./clock";
import { faultsSchema } from "./faults";
import { errorBody, HttpError, parseBody } from "./http";
import { addUser, addUserSchema, createRepo, createRepoSchema, ensureAdminUser, setRole, setRoleSchema } from "./repos-admin";
import { parseJson, readBody } from "./body";

const ciScriptSchema = z
  .object({
    repo: z.string(),
    script: z
      .object({ conclusion: z.enum(["success", "failure"]).optional(), delayMs: z.number().int().min(0).max(600_000).optional() })
      .strict()
      .nullable(),
  })
  .strict();

const clockSchema = z
  .object({
    offsetMs: z
      .number()
      .int()
      .min(0)
      .max(365 * 24 * 3_600_000),
  })
  .strict();

const AVATAR = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#8a8"/></svg>';

export async function handleAdmin(app: App, req: IncomingMessage, res: ServerResponse, path: string, method: string, _query: URLSearchParams): Promise<void> {
  const reply = (status: number, body?: unknown): void => {
    res.writeHead(status, body === undefined ? {} : { "content-type": "application/json; charset=utf-8" });
    res.end(body === undefined ? "" : JSON.stringify(body));
  };
  try {
    if (method === "GET" && path.startsWith("/_sandbox/avatars/")) {
      res.writeHead(200, { "content-type": "image/svg+xml" });
      res.end(AVATAR);
      return;
    }
    if (tokenFrom(req) !== app.adminToken) throw new HttpError(401, "The sandbox admin API needs the admin token (Authorization: Bearer <adminToken>).");
    const body = parseJson(await readBody(req));
    const route = `${method} ${path.replace(/\/$/, "")}`;
    switch (route) {
      case "POST /_sandbox/repos": {
        const spec = parseBody(createRepoSchema, body, "Repository");
        if (spec.fromDir) await checkFromDir(app, spec.fromDir);
        const repo = await createRepo(app, spec);
        reply(201, { owner: repo.owner, name: repo.name, gitUrl: app.gitUrl(repo.owner, repo.name) });
        return;
      }
      case "POST /_sandbox/users": {
        const spec = parseBody(addUserSchema, body, "User");
        reply(201, await addUser(app, spec.login, spec.repos, spec.scopes));
        return;
      }
      case "PUT /_sandbox/roles": {
        const spec = parseBody(setRoleSchema, body, "Role");
        setRole(app, spec.login, spec.repo, spec.role);
        await app.store.changed();
        reply(204);
        return;
      }
      case "PUT /_sandbox/faults": {
        const faults = parseBody(faultsSchema, body, "Faults");
        if (faults.errorRoutes) {
          try {
            new RegExp(faults.errorRoutes);
          } catch {
            throw new HttpError(422, `errorRoutes is not a valid regular expression: ${faults.errorRoutes}`);
          }
        }
        app.faults.set(faults);
        app.rates.userLimit = faults.rateLimit ?? 5000;
        app.store.setReadLag(faults.readLagMs ?? 0);
        app.rates.restore();
        if (faults.spentBudget) {
          const resetAt = Date.now() + faults.spentBudget.resetInSeconds * 1000;
          for (const login of faults.spentBudget.users) {
            const user = app.store.user(login);
            if (!user) throw new HttpError(422, `spentBudget names no user ${login}`);
            for (const resource of faults.spentBudget.resources) app.rates.exhaust(String(user.id), resource, resetAt);
          }
        }
        reply(204);
        return;
      }
      case "GET /_sandbox/held":
        reply(200, { count: app.faults.heldCount() });
        return;
      case "POST /_sandbox/held/release":
        reply(200, { released: app.faults.releaseHeld() });
        return;
      case "GET /_sandbox/clock":
        reply(200, { offsetMs: clockOffset(), now: new Date(sandboxNow()).toISOString() });
        return;
      case "PUT /_sandbox/clock": {
        const spec = parseBody(clockSchema, body, "Clock");
        setClockOffset(spec.offsetMs);
        reply(200, { offsetMs: clockOffset(), now: new Date(sandboxNow()).toISOString() });
        return;
      }
      case "GET /_sandbox/requests":
        reply(200, app.requestLog);
        return;
      case "DELETE /_sandbox/requests":
        app.requestLog = [];
        reply(204);
        return;
      case "PUT /_sandbox/ci": {
        const spec = parseBody(ciScriptSchema, body, "CiScript");
        const [owner, name] = spec.repo.split("/");
        const repo = owner && name ? app.store.repo(owner, name) : undefined;
        if (!repo) throw new HttpError(404, `No repository ${spec.repo} in the sandbox.`);
        repo.ciScript = spec.script;
        await app.store.changed();
        reply(204);
        return;
      }
      case "POST /_sandbox/reset": {
        await resetSandbox(app);
        reply(204);
        return;
      }
      default:
        throw new HttpError(404, `No admin route ${route}.`);
    }
  } catch (error) {
    if (error instanceof HttpError) {
      reply(error.status, errorBody(error));
      return;
    }
    reply(500, { message: `sandbox admin failed: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/** Back to an empty sandbox: no repos, no users but the admin (same token), no faults, empty log. */
async function resetSandbox(app: App): Promise<void> {
  const token = app.adminToken;
  app.store.reset();
  ensureAdminUser(app, token);
  app.faults.set({});
  resetClock();
  app.rates.userLimit = 5000;
  app.rates.reset();
  app.store.setReadLag(0);
  app.requestLog = [];
  await app.commits.closeAll();
  await app.objects.closeAll();
  app.v2Capabilities.forget();
  app.receivePackAdvertisements.forget();
  app.receiveSetups.forget();
  app.uploadPackRefs.forget();
  await fsp.rm(app.reposRoot, { recursive: true, force: true });
  await fsp.mkdir(app.reposRoot, { recursive: true });
  await app.store.changed();
}

/**
 * `fromDir` publishes a folder as a repository anyone the sandbox lets in can clone, so it is taken
 * only from the sandbox's own seed folder (ADR 0222), resolved through any link.
 */
async function checkFromDir(app: App, fromDir: string): Promise<void> {
  const real = await fsp.realpath(fromDir).catch(() => null);
  if (!real) throw new HttpError(422, `fromDir ${fromDir} does not exist on the sandbox's machine.`);
  const seeds = await fsp.realpath(app.seedsDir);
  if (real === seeds || !real.startsWith(seeds + path.sep)) {
    throw new HttpError(
      422,
      `fromDir must be a folder inside this sandbox's seed folder ${seeds}, not ${fromDir}: a repository made from it can be cloned by anyone the sandbox lets in, so no other folder on this machine is copied. Copy the files into ${seeds}/<name>/ first, or send them as "files". Nothing was created.`,
    );
  }
}
