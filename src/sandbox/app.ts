/** The services one running sandbox shares between its routes. */
import { resetClock } from "./clock";
import { CommitLookups } from "./commit-lookup";
import { ConfigListings } from "./config-state";
import path from "node:path";
import { FaultInjector } from "./faults";
import { ObjectReaders } from "./object-reader";
import { ADMIN_LOGIN } from "./model";
import type { RepoRec } from "./model";
import { ProcessGroups } from "./process-groups";
import { RateLimiter } from "./rate-limit";
import { ReceivePackAdvertisements } from "./receive-pack-advertisement";
import { ReceiveSetups } from "./receive-setup";
import type { Store } from "./store";
import { RefUpdates } from "./ref-updates";
import { UploadPackInProcess } from "./upload-pack-in-process";
import { UploadPackRefs } from "./upload-pack-refs";
import { V2Capabilities } from "./v2-capabilities";

/** Where this sandbox is served (known once it listens). */
export interface Urls {
  api: string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  status: number;
  user: string | null;
  at: string;
  /** A GitHub API request that changes something (any non-GET outside GraphQL, a GraphQL mutation); git traffic is never one. */
  write?: boolean;
}

export interface RefUpdate {
  ref: string;
  before: string | null;
  after: string | null;
}

export class App {
  readonly faults = new FaultInjector();
  readonly rates = new RateLimiter();
  readonly urls: Urls = { api: "" };
  requestLog: RequestLogEntry[] = [];
  /** Set by the CI module; called after a push or a pull request change that should run CI. */
  onHeadChanged: (repo: RepoRec, sha: string, branch: string) => void = () => undefined;
  /** Background jobs (CI runs, mergeability checks) so stop() can wait for them. */
  readonly jobs = new Set<Promise<unknown>>();
  /** Every `git http-backend` still running, by process group; stop() ends them all. */
  readonly gitGroups = new ProcessGroups();
  /** Which commit a ref or sha names, one long-lived `git cat-file` per repository (ADR 0471). */
  readonly commits = new CommitLookups();
  /** Each repository's protocol v2 `info/refs` answer, upload-pack's own, made once (ADR 0474). */
  readonly v2Capabilities = new V2Capabilities();
  /** receive-pack's ref advertisement, written from the refs' names and the repository's batch (ADR 0474). */
  readonly receivePackAdvertisements = new ReceivePackAdvertisements(this.commits);
  /** Each repository's `git config --list`, one process per config state, for the push and the fetch taken in this process. */
  readonly configListings = new ConfigListings();
  /** What a repository's config tells a push taken in this process (ADR 0482). */
  readonly receiveSetups = new ReceiveSetups(this.configListings);
  /** upload-pack's v0/v1 ref advertisement and its v2 ls-refs answers, written from the refs the same way (ADR 0479). */
  readonly uploadPackRefs = new UploadPackRefs(this.commits);
  /** Objects' contents, one long-lived `git cat-file --batch` per repository (ADR 0487). */
  readonly objects = new ObjectReaders();
  /** The Runs' fetches answered without upload-pack (ADR 0487). */
  readonly uploadPacks = new UploadPackInProcess(this.objects, this.configListings);
  /** The sandbox's own ref writes, with git's locks in this process where no hook or config asks for git (ADR 0492). */
  readonly refs = new RefUpdates(this.commits, this.configListings);
  stopping = false;

  constructor(
    readonly store: Store,
    readonly reposRoot: string,
    /** Where git request bodies are read whole before git sees them (spool.ts). */
    readonly spoolDir: string,
    /** The only folder the admin API's `fromDir` may copy from (ADR 0222). */
    readonly seedsDir: string,
  ) {
    // A new sandbox starts at real time, whatever an earlier one in this process was moved to.
    resetClock();
  }

  get adminToken(): string {
    return this.store.state.users[ADMIN_LOGIN]?.token ?? "";
  }

  gitDir(repo: Pick<RepoRec, "owner" | "name">): string {
    return path.join(this.reposRoot, repo.owner.toLowerCase(), `${repo.name.toLowerCase()}.git`);
  }

  gitUrl(owner: string, name: string): string {
    return `${this.urls.api}/${owner}/${name}.git`;
  }

  track<T>(job: Promise<T>): void {
    const p = job.catch(() => undefined);
    this.jobs.add(p);
    void p.finally(() => this.jobs.delete(p));
  }
}
