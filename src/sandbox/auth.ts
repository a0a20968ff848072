/**
 * Who is calling and what they may do. Follows GitHub: a bad token is 401 everywhere; a repo you
 * cannot see is 404 (never 403, which would confirm it exists); a repo you can see but not change
 * is 403.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { HttpError, notFound } from "./http";
import { ADMIN_LOGIN } from "./model";
import type { RepoRec, Role, UserRec } from "./model";
import type { Store } from "./store";
import type { Ctx } from "./router";

export function newToken(): string {
  return `trsb_${randomBytes(20).toString("hex")}`;
}

/** The token in an Authorization header: `Bearer t`, `token t`, or basic auth with the token as password. */
export function tokenFrom(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const [scheme, rest] = [header.slice(0, header.indexOf(" ")).toLowerCase(), header.slice(header.indexOf(" ") + 1).trim()];
  if (scheme === "bearer" || scheme === "token") return rest;
  if (scheme === "basic") {
    const decoded = Buffer.from(rest, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return colon >= 0 ? decoded.slice(colon + 1) : decoded;
  }
  return "";
}

/** undefined = anonymous; throws 401 for a token nobody holds. */
export function authenticate(store: Store, req: IncomingMessage): UserRec | null {
  const token = tokenFrom(req);
  if (token === null) return null;
  const user = token ? store.userByToken(token) : undefined;
  if (!user) throw new HttpError(401, "Bad credentials");
  return user;
}

const rank: Record<Role, number> = { none: 0, read: 1, write: 2, admin: 3 };

export function roleOf(repo: RepoRec, login: string | null | undefined): Role {
  if (!login) return "none";
  if (login === ADMIN_LOGIN) return "admin";
  if (login.toLowerCase() === repo.owner.toLowerCase()) return "admin";
  const direct = repo.roles[login] ?? Object.entries(repo.roles).find(([k]) => k.toLowerCase() === login.toLowerCase())?.[1];
  return direct ?? "none";
}

export function canRead(repo: RepoRec, login: string | null | undefined): boolean {
  return !repo.private || roleOf(repo, login) !== "none";
}

export function hasRole(repo: RepoRec, login: string | null | undefined, need: Role): boolean {
  if (need === "read") return canRead(repo, login);
  return rank[roleOf(repo, login)] >= rank[need];
}

export function requireUser(ctx: Ctx): UserRec {
  if (!ctx.user) throw new HttpError(401, "Requires authentication");
  return ctx.user;
}

/** Loads the repo named by :owner/:repo and checks the caller holds `need` on it. */
export function requireRepo(ctx: Ctx, need: Role = "read", state = ctx.app.store.state): RepoRec {
  const owner = ctx.params.owner ?? "";
  const name = ctx.params.repo ?? "";
  const repo = state.repos[`${owner}/${name}`.toLowerCase()];
  const login = ctx.user?.login;
  if (!repo || !canRead(repo, login)) throw notFound();
  if (need === "read" || need === "none") return repo;
  if (!ctx.user) throw new HttpError(401, "Requires authentication");
  if (!hasRole(repo, login, need)) {
    throw new HttpError(403, need === "admin" ? "Must have admin rights to Repository." : "Resource not accessible by personal access token");
  }
  return repo;
}

/** GitHub's author_association for a login on a repo. */
export function association(repo: RepoRec, login: string): string {
  if (login.toLowerCase() === repo.owner.toLowerCase()) return "OWNER";
  if (login === ADMIN_LOGIN) return "MEMBER";
  return roleOf(repo, login) === "none" ? "NONE" : "COLLABORATOR";
}
