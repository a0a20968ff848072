/**
 * `ticket-runner unlock`: a person frees the Run lock a vanished Host left behind (docs/workspace.md: a lock
 * from another Host is never presumed dead, so freeing it is a person's call, made here with --yes).
 */
import { GitWorkspace } from "../../adapters/git/git-workspace";
import { NodeHost } from "../../adapters/node-host";
import { sanitizeSentence } from "../../core/board/sanitize";
import { Failure, Refusal } from "../../core/errors";
import type { CliCommand } from "../command";
import { tokenFrom } from "../../app/target";
import { parseArgs, requireClone } from "../target-options";

const USAGE = `ticket-runner unlock [--yes] [--scope target|host] [--note <text>]

Frees the Run lock, run from a clone of the Target: lock.json on the ticket-runner/lock branch of
the Target's remote, or with --scope host this Host's lock-<hostId>.json on its own branch,
ticket-runner/locks/<hostId>. A lock held by a Run on another Host is freed only with --yes: do it only when
no Run is running there. A Run still alive on this Host is never unlocked: use \`ticket-runner stop\`.`;

export const unlockCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--yes"], values: ["--scope", "--note"] });
    const scope = args.values.get("--scope") ?? "target";
    if (scope !== "target" && scope !== "host") {
      throw new Refusal("bad-input", `--scope must be "target" or "host", not "${scope}": \`ticket-runner unlock --scope target\`.`, {
        next: "ticket-runner unlock --scope target",
      });
    }
    const root = requireClone(io, { command: "unlock" }, args);
    const yes = args.flags.has("--yes");
    const host = new NodeHost({ env: io.env });
    const me = host.identity();
    const ws = new GitWorkspace({ root, host, lockScope: scope, token: tokenFrom(io.env) ?? undefined, env: io.env });
    const note = args.values.get("--note") ?? `ticket-runner unlock on ${me.kind === "cloud" ? "the cloud host" : "the workstation"} \`${me.name}\``;

    let described = "unreadable";
    try {
      const lock = await ws.readLock();
      if (!lock.held) {
        io.out("The Run lock is already free.");
        return 0;
      }
      described = sanitizeSentence(
        `run ${lock.runId} on \`${lock.host.name}\` (host id ${lock.host.id}, pid ${lock.pid}, since ${lock.startedAt}): \`${lock.command}\``,
      );
      if (lock.host.id === me.id) {
        const started = await host.processStartTime(lock.pid);
        const alive = started !== null && (lock.processStartTime === null || started === lock.processStartTime);
        if (alive) {
          io.err(`The Run lock is held by ${described}, which is still running on this Host. Stop it with \`ticket-runner stop\` instead.`);
          return 2;
        }
      } else if (!yes) {
        io.err(`The Run lock is held by ${described}, on another Host. Nothing here can tell whether that Run is still going.`);
        io.err("If no Run is running there, free it with: ticket-runner unlock --yes");
        return 2;
      }
    } catch (e) {
      if (!(e instanceof Failure && e.reason === "invalid-record")) throw e;
      if (!yes) {
        io.err(`${e.message} Replace it with {"held": false}: ticket-runner unlock --yes`);
        return 2;
      }
    }
    const { previous } = await ws.unlock(note);
    io.out(`Freed the Run lock (it was ${previous === "free" ? "free" : described === "unreadable" ? previous : `held by ${described}`}).`);
    return 0;
  },
};
