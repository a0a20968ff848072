/**
 * One demo start: holds the demo folder (one demo per folder at a time), the processes it starts,
 * and what Ctrl+C and SIGTERM mean while it runs.
 *
 *   Ctrl+C (SIGINT)  the Run is killed, exactly like Ctrl+C on `ticket-runner run`: its claims stay
 *                    and the next demo resumes them. code-server and the sandbox are stopped by pid.
 *   SIGTERM          the Run is asked to Stop (busy Lanes finish), then everything is stopped.
 *   a second Ctrl+C  (a moment after the first) everything still running is killed at once.
 */
import type { Host } from "../ports/host";
import { DemoChildren, stopLeftovers } from "./children";
import type { DemoChild } from "./children";
import { existsSync } from "node:fs";
import { demoCommandLine, newDemoId, newDemoState, readDemoState, wipeDemoFolder, writeDemoState } from "./folder";
import type { DemoPaths, DemoState } from "./folder";
import { Refusal } from "../core/errors";

type Times = Pick<Host, "processStartTime">;

export class DemoSession {
  readonly children: DemoChildren;
  private state: DemoState;
  private signalled: NodeJS.Signals | null = null;
  private signalledAt = 0;
  private readonly waiters: ((sig: NodeJS.Signals) => void)[] = [];
  /** The child a signal is forwarded to as is (the Run); the others are stopped by stopAll(). */
  private foreground: DemoChild | null = null;
  private readonly onSigint = () => this.interrupt("SIGINT");
  private readonly onSigterm = () => this.interrupt("SIGTERM");

  private constructor(
    readonly paths: DemoPaths,
    state: DemoState,
    private readonly times: Times,
  ) {
    this.state = state;
    this.children = new DemoChildren(times, (records) => this.save({ children: records }));
  }

  /**
   * Takes the folder: refused while another demo holds it; a dead demo's leftover processes are
   * stopped first (they would hold the sandbox's port and data).
   */
  static async open(paths: DemoPaths, times: Times, now: Date, say: (line: string) => void, opts: { fresh: boolean }): Promise<DemoSession> {
    let found: DemoState | null;
    try {
      found = readDemoState(paths);
    } catch (error) {
      // A broken record is what --fresh is for; without it, the refusal says so.
      if (!(opts.fresh && existsSync(paths.stateFile))) throw error;
      found = null;
    }
    // A folder an older demo made (its record passed the strict schema) gets its id and marker now.
    const state = found ? { ...found, id: found.id ?? newDemoId() } : newDemoState(now);
    if (state.owner && state.owner.pid !== process.pid) {
      const start = await times.processStartTime(state.owner.pid);
      if (start !== null && start === state.owner.startTime) {
        throw new Refusal(
          "lock-held",
          `Another demo is running from ${paths.root} (pid ${state.owner.pid}). Stop it with Ctrl+C in its terminal (or \`kill -INT ${state.owner.pid}\`), or give this one its own folder: \`${demoCommandLine(["--data", "<another folder>"])}\`.`,
          { path: paths.root },
        );
      }
    }
    const left = await stopLeftovers(state.children, times);
    if (left.length) say(`Stopped what an earlier demo left running: ${left.join(", ")}.`);
    if (opts.fresh) {
      wipeDemoFolder(paths);
      say(`--fresh: removed ${paths.root}; starting over.`);
    }
    const session = new DemoSession(paths, opts.fresh ? newDemoState(now) : { ...state, children: [] }, times);
    session.save({ owner: { pid: process.pid, startTime: await times.processStartTime(process.pid) } });
    return session;
  }

  get record(): DemoState {
    return this.state;
  }

  save(patch: Partial<DemoState>): void {
    this.state = { ...this.state, ...patch };
    writeDemoState(this.paths, this.state);
  }

  listen(): void {
    process.on("SIGINT", this.onSigint);
    process.on("SIGTERM", this.onSigterm);
  }

  /** The signal that interrupted the demo, if any. */
  get interrupted(): NodeJS.Signals | null {
    return this.signalled;
  }

  /** Resolves with the first signal. */
  untilSignal(): Promise<NodeJS.Signals> {
    if (this.signalled) return Promise.resolve(this.signalled);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  setForeground(child: DemoChild | null): void {
    this.foreground = child;
  }

  private interrupt(sig: NodeJS.Signals): void {
    if (this.signalled === "SIGINT" && sig === "SIGINT") {
      // One Ctrl+C can arrive twice: from the terminal, and forwarded by `npm run` and the
      // wrapper. Only a second press, a moment later, means "do not wait any more".
      if (Date.now() - this.signalledAt < 1_000) return;
      for (const c of this.children.running()) this.children.send(c, "SIGKILL");
      process.exit(130);
    }
    if (this.signalled && sig === "SIGTERM") return; // a second SIGTERM changes nothing, like `ticket-runner run`
    if (this.signalled === sig) return;
    this.signalled = sig;
    this.signalledAt = Date.now();
    // The Run gets the same signal: SIGINT kills it (its Stages too), SIGTERM makes it Stop.
    // From a terminal it got the Ctrl+C already (same process group); a second one is harmless.
    if (this.foreground) this.children.send(this.foreground, sig);
    for (const w of this.waiters.splice(0)) w(sig);
  }

  /** Stops every child still running, the last started first, each by its pid or process group. */
  async stopAll(say: (line: string) => void): Promise<void> {
    for (const c of this.children.running().reverse()) {
      const code = await this.children.stop(c, c === this.foreground ? "SIGINT" : "SIGTERM", c.what === "sandbox" ? 15_000 : 5_000);
      say(`Stopped the ${c.what} (pid ${c.pid}${code > 128 ? `, signal ${code - 128}` : ""}).`);
    }
  }

  /** Gives the folder back: the owner and children are cleared in demo.json. */
  close(): void {
    process.off("SIGINT", this.onSigint);
    process.off("SIGTERM", this.onSigterm);
    this.save({ owner: null, children: [] });
  }

  get startTimes(): Times {
    return this.times;
  }
}
