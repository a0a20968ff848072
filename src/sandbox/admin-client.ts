/** A typed client for the sandbox admin API (/_sandbox/*), used by tests, the demo and the CLI. */
import type { RequestLogEntry } from "./app";
import type { Faults } from "./faults";
import type { Role } from "./model";

export interface CreateRepoInput {
  owner: string;
  name: string;
  defaultBranch?: string;
  files?: Record<string, string>;
  fromDir?: string;
  ciCommand?: string[] | null;
  private?: boolean;
  labels?: { name: string; color?: string; description?: string }[];
}

/** One request the sandbox served, as its admin API lists them (the server keeps them as App.requestLog). */
export type RequestLogRecord = RequestLogEntry;

export interface CiScriptInput {
  conclusion?: "success" | "failure";
  delayMs?: number;
}

export class SandboxAdmin {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
  ) {}

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.apiUrl}/_sandbox/${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not JSON: keep the raw text
      }
      throw new Error(`sandbox admin ${method} /_sandbox/${path} failed with ${res.status}: ${message}`);
    }
    return text ? JSON.parse(text) : undefined;
  }

  async createRepo(input: CreateRepoInput): Promise<void> {
    await this.call("POST", "repos", input);
  }

  async addUser(input: { login: string; repos?: Record<string, Role>; scopes?: string[] }): Promise<{ token: string }> {
    return (await this.call("POST", "users", input)) as { token: string };
  }

  async setRole(login: string, repo: string, role: Role): Promise<void> {
    await this.call("PUT", "roles", { login, repo, role });
  }

  async setFaults(faults: Faults): Promise<void> {
    await this.call("PUT", "faults", faults);
  }

  async requestLog(): Promise<RequestLogRecord[]> {
    return (await this.call("GET", "requests")) as RequestLogRecord[];
  }

  async clearRequestLog(): Promise<void> {
    await this.call("DELETE", "requests");
  }

  async scriptCi(repo: string, script: CiScriptInput | null): Promise<void> {
    await this.call("PUT", "ci", { repo, script });
  }

  /** How many writes `holdWrites` holds now. */
  async heldWrites(): Promise<number> {
    return ((await this.call("GET", "held")) as { count: number }).count;
  }

  /** Lets every held write go on (they land with the sandbox clock of now). */
  async releaseHeld(): Promise<number> {
    return ((await this.call("POST", "held/release")) as { released: number }).released;
  }

  /** Sets the sandbox clock `offsetMs` ahead of real time (it never moves back). */
  async setClock(offsetMs: number): Promise<void> {
    await this.call("PUT", "clock", { offsetMs });
  }

  async reset(): Promise<void> {
    await this.call("POST", "reset");
  }
}
