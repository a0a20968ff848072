export type HostKind = "workstation" | "cloud";

/** The machine a Run is on. `id` is stable across restarts (docs/adr/0030-host-identity.md). */
export interface HostIdentity {
  id: string;
  name: string;
  kind: HostKind;
}

export interface Host {
  identity(): HostIdentity;
  pid(): number;
  /**
   * The OS's start time of `pid`, as an opaque string that changes when the pid is reused
   * (on Linux: boot id + field 22 of /proc/<pid>/stat). null when no such process lives (a zombie
   * counts as gone).
   */
  processStartTime(pid: number): Promise<string | null>;
  /** Sends a signal; false when the process does not exist. */
  signal(pid: number, signal: "SIGTERM" | "SIGKILL"): boolean;
}
