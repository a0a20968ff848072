/** Creating repositories and users: shared by the admin API and the built-in seeds. */
import { promises as fsp } from "node:fs";
import { z } from "zod";
import type { App } from "./app";
import { newToken } from "./auth";
import { commitInitial, initBare, isSafeName, isSafeRefName } from "./git";
import { HttpError, validationFailed } from "./http";
import { ADMIN_LOGIN, isoNow, repoKey } from "./model";
import type { LabelRec, RepoRec, Role } from "./model";

const roleSchema = z.enum(["admin", "write", "read", "none"]);

export const createRepoSchema = z
  .object({
    owner: z.string(),
    name: z.string(),
    defaultBranch: z.string().optional(),
    files: z.record(z.string()).optional(),
    fromDir: z.string().optional(),
    ciCommand: z.array(z.string()).min(1).nullable().optional(),
    private: z.boolean().optional(),
    labels: z.array(z.object({ name: z.string(), color: z.string().optional(), description: z.string().optional() }).strict()).optional(),
  })
  .strict();

const DEFAULT_LABELS = [
  { name: "bug", color: "d73a4a", description: "Something isn't working" },
  { name: "documentation", color: "0075ca", description: "Improvements or additions to documentation" },
  { name: "enhancement", color: "a2eeef", description: "New feature or request" },
  { name: "question", color: "d876e3", description: "Further information is requested" },
];

export type CreateRepoSpec = z.infer<typeof createRepoSchema>;

export const addUserSchema = z
  .object({
    login: z.string(),
    repos: z.record(roleSchema).optional(),
    scopes: z
      .array(z.string().regex(/^[a-z:_]+$/))
      .max(50)
      .optional(),
  })
  .strict();
export const setRoleSchema = z.object({ login: z.string(), repo: z.string(), role: roleSchema }).strict();

export async function createRepo(app: App, spec: CreateRepoSpec): Promise<RepoRec> {
  if (!isSafeName(spec.owner) || !isSafeName(spec.name)) {
    throw validationFailed([
      { resource: "Repository", field: "name", code: "invalid", message: "owner and name may hold only letters, digits, '-', '_' and '.'" },
    ]);
  }
  const branch = spec.defaultBranch ?? "main";
  if (!isSafeRefName(branch)) throw validationFailed([{ resource: "Repository", field: "default_branch", code: "invalid" }]);
  for (const file of Object.keys(spec.files ?? {})) {
    if (file.startsWith("/") || file.split("/").some((p) => p === ".." || p === "." || p === "" || p === ".git")) {
      throw validationFailed([{ resource: "Repository", field: "files", code: "invalid", message: `bad file path: ${file}` }]);
    }
  }
  const key = repoKey(spec.owner, spec.name);
  if (app.store.state.repos[key]) {
    throw validationFailed([{ resource: "Repository", field: "name", code: "custom", message: "name already exists on this account" }]);
  }
  const gitDir = app.gitDir({ owner: spec.owner, name: spec.name });
  await app.commits.close(gitDir);
  await app.objects.close(gitDir);
  app.v2Capabilities.forget(gitDir);
  app.receivePackAdvertisements.forget(gitDir);
  app.receiveSetups.forget(gitDir);
  app.uploadPackRefs.forget(gitDir);
  await fsp.rm(gitDir, { recursive: true, force: true });
  await initBare(gitDir, branch);
  if (spec.fromDir || (spec.files && Object.keys(spec.files).length)) {
    await commitInitial(gitDir, branch, { files: spec.files, fromDir: spec.fromDir }, "Initial commit");
  }
  const now = isoNow();
  // GitHub gives every new repository its default labels; copy that.
  const labels: LabelRec[] = [...DEFAULT_LABELS.filter((d) => !spec.labels?.some((l) => l.name.toLowerCase() === d.name)), ...(spec.labels ?? [])].map((l) => ({
    id: app.store.nextId(),
    name: l.name,
    color: l.color ?? "ededed",
    description: l.description ?? null,
    default: DEFAULT_LABELS.some((d) => d.name === l.name),
  }));
  const repo: RepoRec = {
    id: app.store.nextId(),
    owner: spec.owner,
    name: spec.name,
    defaultBranch: branch,
    private: spec.private ?? false,
    description: null,
    allowSquashMerge: true,
    allowMergeCommit: true,
    allowRebaseMerge: true,
    deleteBranchOnMerge: false,
    ciCommand: spec.ciCommand ?? null,
    ciScript: null,
    roles: {},
    labels,
    issues: [],
    checkRuns: [],
    statuses: [],
    createdAt: now,
    updatedAt: now,
    pushedAt: now,
  };
  app.store.state.repos[key] = repo;
  await app.store.changed();
  return repo;
}

export function ensureAdminUser(app: App, token?: string): void {
  if (app.store.state.users[ADMIN_LOGIN]) return;
  app.store.state.users[ADMIN_LOGIN] = { id: app.store.nextId(), login: ADMIN_LOGIN, token: token ?? newToken(), createdAt: isoNow() };
}

export async function addUser(app: App, login: string, repos: Record<string, Role> = {}, scopes?: string[]): Promise<{ token: string }> {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(login) && !/^[A-Za-z0-9-]+\[bot\]$/.test(login)) {
    throw validationFailed([{ resource: "User", field: "login", code: "invalid", message: "a login is letters, digits and single hyphens" }]);
  }
  let user = app.store.state.users[login];
  if (!user) {
    user = { id: app.store.nextId(), login, token: newToken(), createdAt: isoNow() };
    app.store.state.users[login] = user;
  }
  if (scopes) user.scopes = scopes;
  for (const [full, role] of Object.entries(repos)) setRole(app, login, full, role);
  await app.store.changed();
  return { token: user.token };
}

export function setRole(app: App, login: string, full: string, role: Role): void {
  const [owner, name] = full.split("/");
  const repo = owner && name ? app.store.repo(owner, name) : undefined;
  if (!repo) throw new HttpError(404, `No repository ${full} in the sandbox. Create it first with createRepo.`);
  if (!app.store.state.users[login]) throw new HttpError(404, `No user ${login} in the sandbox. Add it first with addUser.`);
  if (role === "none") delete repo.roles[login];
  else repo.roles[login] = role;
}
