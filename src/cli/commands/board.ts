/**
 * `ticket-runner board [--json]`: the Target's tickets with their claim state, read through the
 * claims parser (trusted leases only) plus this Host's run directories, as the shared board model
 * (src/core/board/) that the tree view shows too.
 */
import { SECTION_ORDER, SECTION_TITLES } from "../../core/board/build";
import type { CliCommand } from "../command";
import { printBoard } from "../board-render";
import { wireClaims } from "../claim-wiring";
import { parseArgs, resolveTarget } from "../target-options";

// The section list comes from the board model itself (src/core/board/build.ts), so it cannot drift.
const SECTIONS = SECTION_ORDER.map((id) => SECTION_TITLES[id]).join(", ");

const USAGE = `ticket-runner board [--json] [--mine] [--repo owner/name] [--api-url <url>]

Lists open tickets (ready-for-agent, in-progress, ready-for-human) in the board's sections, with
the Run column, the lease link and run directories on this Host:
  ${SECTIONS}
(Blocked only where the server has issue dependencies.) --mine keeps what this user or Host holds.
--json prints the board model as JSON.`;

export const boardCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--json", "--mine"] });
    const target = resolveTarget(args, io, { command: "board" });
    const w = wireClaims(target, io, "person");
    // The shared board model and its fetch (src/core/board/, src/cli/board-render.ts).
    return printBoard(target, w, io, { json: args.flags.has("--json"), filter: args.flags.has("--mine") ? "mine" : "all" });
  },
};
