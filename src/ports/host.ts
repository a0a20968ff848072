export type HostKind = "workstation" | "cloud";

/** The machine a Run is on. `id` is stable across restarts (docs/adr/0003-host-identity.md). */
export interface HostIdentity {
  id: string;
  name: string;
  kind: HostKind;
}

export interface Host {
  identity(): HostIdentity;
  pid(): number;
  /** The OS's start time of `pid` (from /proc/<pid>/stat), or null when no such process lives. */
  processStartTime(pid: number): Promise<string | null>;
  /** Sends a signal; false when the process does not exist. */
  signal(pid: number, signal: "SIGTERM" | "SIGKILL"): boolean;
}
