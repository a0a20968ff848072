/**
 * The Host port on Node: a stable id for this machine, and the liveness of a process as the OS
 * reports it (docs/adr/0030-host-identity.md).
 */
import { execFile } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import type { Host, HostIdentity } from "../ports/host";

/** Keyed hash so the raw machine id (a secret-ish value, per systemd) never leaves the machine. */
const HOST_ID_KEY = "ticket-runner/host-id/v1";
const MACHINE_ID_FILES = ["/etc/machine-id", "/var/lib/dbus/machine-id"];
/** Env variables that name a cloud session, in the order they are trusted. */
const SESSION_ENV = ["TICKET_RUNNER_HOST_SESSION", "CODESPACE_NAME", "GITHUB_RUN_ID"] as const;

export interface NodeHostOptions {
  env?: Record<string, string | undefined>;
  /** Where to look for the machine id; tests point this at a temp file. */
  machineIdFiles?: string[];
  /** Root of procfs; tests may point it elsewhere. */
  procRoot?: string;
}

export function hashHostId(raw: string): string {
  return createHmac("sha256", HOST_ID_KEY).update(raw.trim()).digest("hex").slice(0, 24);
}

/** Keeps an id usable in a file name (`lock-<id>.json`) and a log line. */
function safeIdPart(raw: string): string {
  const cleaned = raw
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 80);
  return cleaned || hashHostId(raw);
}

function readMachineId(files: string[]): string | null {
  for (const file of files) {
    try {
      const id = readFileSync(file, "utf8").trim();
      if (id) return id;
    } catch {
      // not on this system; try the next
    }
  }
  return null;
}

/** Works out this Host's identity from the environment and the machine id. Pure apart from the file read. */
export function resolveHostIdentity(opts: NodeHostOptions = {}): HostIdentity {
  const env = opts.env ?? process.env;
  const name = (env.TICKET_RUNNER_HOST_NAME || hostname() || "unnamed").slice(0, 200);
  for (const key of SESSION_ENV) {
    const value = env[key];
    if (!value) continue;
    // A GitHub Actions re-run is a new session of the same run id.
    const session = key === "GITHUB_RUN_ID" && env.GITHUB_RUN_ATTEMPT ? `${value}-${env.GITHUB_RUN_ATTEMPT}` : value;
    return { kind: "cloud", id: `cloud-${safeIdPart(session)}`, name };
  }
  if (env.TICKET_RUNNER_HOST_KIND === "cloud") {
    // A cloud Host that names no session: a fresh id per process, so even its own later Runs
    // treat its lock as a stranger's rather than guessing it is dead.
    return { kind: "cloud", id: `cloud-anon-${randomBytes(8).toString("hex")}`, name };
  }
  const machineId = readMachineId(opts.machineIdFiles ?? MACHINE_ID_FILES);
  if (machineId) return { kind: "workstation", id: `ws-${hashHostId(machineId)}`, name };
  return { kind: "workstation", id: `ws-host-${safeIdPart(name)}`, name };
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) sits in parentheses and may itself contain
 * spaces and parentheses, so fields are counted from the LAST ')'.
 */
export function parseProcStat(stat: string): { state: string; startTime: string } | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const rest = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); field 22 (starttime) is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return null;
  return { state, startTime };
}

export class NodeHost implements Host {
  private readonly ident: HostIdentity;
  private readonly procRoot: string;
  private bootId: string | null | undefined;

  constructor(opts: NodeHostOptions = {}) {
    this.ident = resolveHostIdentity(opts);
    this.procRoot = opts.procRoot ?? "/proc";
  }

  identity(): HostIdentity {
    return { ...this.ident };
  }

  pid(): number {
    return process.pid;
  }

  async processStartTime(pid: number): Promise<string | null> {
    if (!Number.isInteger(pid) || pid <= 0) return null;
    let stat: string;
    try {
      stat = await readFile(`${this.procRoot}/${pid}/stat`, "utf8");
    } catch (e) {
      if (errnoCode(e) === "ENOENT" || errnoCode(e) === "ESRCH") return null;
      return this.startTimeWithoutProc(pid);
    }
    const parsed = parseProcStat(stat);
    if (!parsed) return null;
    // A zombie has exited; only its parent has not reaped it yet.
    if (parsed.state === "Z" || parsed.state === "X") return null;
    // Start times count clock ticks since boot, so after a reboot they repeat; the boot id tells them apart.
    return `${await this.readBootId()}:${parsed.startTime}`;
  }

  signal(pid: number, signal: "SIGTERM" | "SIGKILL"): boolean {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  private async readBootId(): Promise<string> {
    if (this.bootId === undefined) {
      try {
        this.bootId = (await readFile(`${this.procRoot}/sys/kernel/random/boot_id`, "utf8")).trim() || null;
      } catch {
        this.bootId = null;
      }
    }
    return this.bootId ?? "boot";
  }

  /**
   * No procfs (macOS, BSD): ask ps for the start time. Asynchronously: the extension host runs this
   * on its event loop, and a synchronous child process stops everything else there until it exits.
   */
  private startTimeWithoutProc(pid: number): Promise<string | null> {
    return new Promise((resolve) => {
      execFile("ps", ["-o", "lstart=", "-p", String(pid)], { encoding: "utf8", env: { ...process.env, LC_ALL: "C" } }, (error, stdout) => {
        const started = error ? "" : stdout.trim();
        resolve(started ? `ps:${started}` : null);
      });
    });
  }
}

function errnoCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined;
}
