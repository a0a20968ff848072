/**
 * One in-memory world for the Run's unit tests: a FakeGitHub, a FakeRemote with this Host's
 * FakeWorkspace, a scripted agent, a claim gate and virtual time, wired the way the Run sees them.
 */
import { configSchema } from "../../../src/core/schemas/config";
import type { ConfigInput } from "../../../src/core/schemas/config";
import { Run } from "../../../src/core/run/run";
import type { RunOptions } from "../../../src/core/run/run";
import type { RunDeps } from "../../../src/core/run/context";
import type { Host, HostIdentity } from "../../../src/ports/host";
import type { Log, LogFields } from "../../../src/ports/log";
import type { CiReport } from "../../../src/ports/tracker";
import { FakeAgentRunner } from "../../fakes/fake-agent-runner";
import { FakeClaimGate } from "../../fakes/fake-claim-gate";
import { FakeClock } from "../../fakes/fake-clock";
import { FakeGitHub } from "../../fakes/fake-tracker";
import { FakeRemote, FakeWorkspace } from "../../fakes/fake-workspace";

export class MemoryLog implements Log {
  readonly lines: string[] = [];
  private add(level: string, message: string, fields?: LogFields) {
    this.lines.push(`${level} ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}`);
  }
  debug(m: string, f?: LogFields) {
    this.add("debug", m, f);
  }
  info(m: string, f?: LogFields) {
    this.add("info", m, f);
  }
  warn(m: string, f?: LogFields) {
    this.add("warn", m, f);
  }
  error(m: string, f?: LogFields) {
    this.add("error", m, f);
  }
  has(text: string): boolean {
    return this.lines.some((l) => l.includes(text));
  }
}

export class FakeHost implements Host {
  constructor(
    readonly who: HostIdentity = { id: "host-a", name: "desk", kind: "workstation" },
    readonly pidValue = 4321,
  ) {}
  identity() {
    return this.who;
  }
  pid() {
    return this.pidValue;
  }
  async processStartTime() {
    return "boot-1:100";
  }
  signal() {
    return true;
  }
}

export const CRITERIA = "- [ ] the widget spins\n- [ ] the widget stops";

export interface WorldOptions {
  config?: ConfigInput;
  viewer?: string;
}

export class World {
  readonly clock = new FakeClock();
  readonly gh = new FakeGitHub({ owner: "acme", repo: "widgets" }, { now: () => this.clock.now().getTime() });
  readonly remote = new FakeRemote();
  readonly ws: FakeWorkspace;
  readonly viewer: string;
  readonly gate: FakeClaimGate;
  readonly agent: FakeAgentRunner;
  readonly log = new MemoryLog();
  readonly host = new FakeHost();
  config: ConfigInput;
  /** CI for a pushed tip; default success. Asked before every ciReport. */
  ci: (branch: string, sha: string) => CiReport = () => ({ state: "success", details: ["test: success"] });
  private readonly clones: FakeWorkspace[] = [];

  constructor(opts: WorldOptions = {}) {
    this.viewer = opts.viewer ?? "bot";
    this.gh.addUser(this.viewer, "write");
    this.gh.addUser("alice", "admin");
    this.gh.addUser("mallory", "read");
    this.gh.addUser("bob", "write");
    this.ws = this.clone();
    this.gate = new FakeClaimGate(this.gh.client(this.viewer), this.clock);
    this.agent = new FakeAgentRunner(() => this.ws);
    this.config = { checks: [["npm", "test"]], ...opts.config };
    // GitHub's view of a pull request's head and of CI follows the remote branches.
    this.gh.beforeRequest = (_user, method) => {
      const live = this.gh.live();
      for (const pr of live.pulls) {
        const tip = this.remote.branches.get(pr.head);
        if (tip && pr.state === "open") pr.headSha = tip[tip.length - 1] ?? pr.headSha;
      }
      if (method === "ciReport") {
        for (const [branch, commits] of this.remote.branches) {
          const sha = commits[commits.length - 1];
          if (sha && branch !== "main") this.gh.setCi(sha, this.ci(branch, sha));
        }
      }
    };
  }

  clone(): FakeWorkspace {
    const ws = new FakeWorkspace(this.remote);
    this.clones.push(ws);
    return ws;
  }

  dispose(): void {
    for (const c of this.clones) c.dispose();
  }

  ticket(title: string, opts: { body?: string; labels?: string[]; by?: string } = {}): number {
    return this.gh.addIssue({ title, body: opts.body ?? `Make it so.\n\n${CRITERIA}\n`, labels: opts.labels ?? ["ready-for-agent"], by: opts.by ?? "alice" });
  }

  deps(overrides: Partial<RunDeps> = {}): RunDeps {
    return {
      tracker: this.gh.client(this.viewer),
      workspace: this.ws,
      agent: this.agent,
      gate: this.gate,
      clock: this.clock,
      host: this.host,
      log: this.log,
      ...overrides,
    };
  }

  run(options: RunOptions = {}, overrides: Partial<RunDeps> = {}): Run {
    return new Run(this.deps(overrides), configSchema.parse(this.config), { version: "0.1.0-test", ...options });
  }

  issue(n: number) {
    return this.gh.issue(n);
  }

  comments(n: number) {
    return this.gh.commentsOn(n);
  }

  pulls() {
    return this.gh.live().pulls;
  }

  state(n: number) {
    return this.remote.states.get(n) ?? null;
  }
}

/** Records calls of the named methods on `target` into `journal`, in order, as `<label>.<method>`. */
export function spy<T extends object>(target: T, label: string, methods: (keyof T & string)[], journal: string[]): T {
  for (const m of methods) {
    const original = target[m] as unknown as (...args: unknown[]) => unknown;
    (target as Record<string, unknown>)[m] = (...args: unknown[]) => {
      journal.push(`${label}.${m}`);
      return original.apply(target, args);
    };
  }
  return target;
}

/** A promise a test resolves by hand, to hold an agent Stage mid-flight. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
