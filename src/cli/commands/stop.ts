/**
 * `ticket-runner stop`: reads the Run lock and sends SIGTERM to the Run it names, on this Host
 * only. It reads the config only for its lockScope (through the one loader: a bad file is refused
 * as `run` refuses it, not read as the Target's lock), and needs no token and no Target readiness: the Run it stops passed all of
 * those when it started. There is no stop file, so a second stop prints what the first did.
 */
import { GitWorkspace } from "../../adapters/git/git-workspace";
import { NodeHost } from "../../adapters/node-host";
import { sanitizeName, sanitizeSentence } from "../../core/board/sanitize";
import type { LockFile } from "../../core/schemas/lock-file";
import type { Host } from "../../ports/host";
import type { CliCommand, CliIo } from "../command";
import { loadConfigOrDefaults } from "../../app/config-load";
import { tokenFrom } from "../../app/target";
import { parseArgs, requireClone } from "../target-options";

const USAGE = `ticket-runner stop

Asks the \`ticket-runner run\` that holds this Target's Run lock, on this Host, to stop: its busy
Lanes finish (to a merge, a Hand-off or a Release) and it takes nothing new.
Exit codes: 0 asked, 2 nothing to stop (or another Host's Run, or the signal failed).`;

export interface StopDeps {
  readLock(): Promise<LockFile>;
  host: Host;
  /** Sends SIGTERM; throws with the reason when it cannot be delivered. */
  kill(pid: number): void;
}

/** The stop decision and its words, apart from the adapters so it can be tested on its own. */
export async function stopRun(deps: StopDeps, io: Pick<CliIo, "out" | "err">): Promise<number> {
  let lock: LockFile;
  try {
    lock = await deps.readLock();
  } catch (error) {
    io.err(`No Run to stop: the Run lock could not be read (${(error as Error).message.split("\n")[0]}). A dead lock is left for the next Run to take over.`);
    return 2;
  }
  if (!lock.held) {
    io.err("No Run to stop: nobody holds the Run lock of this Target. A dead lock is left for the next Run to take over.");
    return 2;
  }
  // The lock is on the remote: its words are whatever the last writer put there.
  const who = sanitizeSentence(`\`${lock.command}\` (run ${lock.runId}, pid ${lock.pid})`);
  const me = deps.host.identity();
  if (lock.host.id !== me.id) {
    io.err(
      `The Run lock is held by ${who} on the ${lock.host.kind} \`${sanitizeName(lock.host.name)}\`, another Host, started ${sanitizeName(lock.startedAt)}. \`ticket-runner stop\` works only on the Run's own Host; ask its Operator to send it SIGTERM. Nothing was sent.`,
    );
    return 2;
  }
  const started = await deps.host.processStartTime(lock.pid);
  if (started === null || (lock.processStartTime !== null && started !== lock.processStartTime)) {
    io.err(`No Run to stop: ${who} is no longer running on this Host. A dead lock is left for the next Run to take over.`);
    return 2;
  }
  // The lock is on the remote, where anyone who can push can write it: a pid alone may name any
  // process of this user. Only pid, Host and start time together prove it is that Run.
  if (lock.processStartTime === null) {
    io.err(
      `Not stopping ${who}: the Run lock records no start time for pid ${lock.pid}, so nothing proves that pid is still that Run (pids are reused, and anyone who can push can write the lock). Nothing was sent. ` +
        `Check it yourself and stop it by hand: \`ps -o pid,lstart,args -p ${lock.pid}\`, then \`kill -TERM ${lock.pid}\`.`,
    );
    return 2;
  }
  try {
    deps.kill(lock.pid);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    io.err(`Could not ask ${who} to stop: ${reason}`);
    return 2;
  }
  io.out(`${who} will stop once the Tickets it holds are finished. It claims no more.`);
  io.out(
    "Ctrl+C in that Run's own terminal stops it at once instead, at the cost of killing the Stages it is running and leaving their Tickets stranded for the next Run.",
  );
  return 0;
}

export const stopCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    if (argv.length > 0) {
      io.err(`ticket-runner stop takes no arguments (got ${argv.join(" ")}).`);
      return 2;
    }
    const host = new NodeHost({ env: io.env });
    // Outside a clone there is no lock to read: say where to run it, not that no Run holds it.
    const root = requireClone(io, { command: "stop" }, parseArgs([], {}));
    const ws = new GitWorkspace({ root, host, lockScope: loadConfigOrDefaults(root).lockScope, token: tokenFrom(io.env) ?? undefined, env: io.env });
    return stopRun({ readLock: () => ws.readLock(), host, kill: (pid) => process.kill(pid, "SIGTERM") }, io);
  },
};
