/* eslint-disable no-control-regex -- this test reads the escape sequences a terminal receives */
import { strict as assert } from "node:assert";
import { RunWorld } from "./run-helpers";

// Control sequences the live display writes: move up N lines, erase to the end of the screen.
const ERASE = /\x1b\[\d+A\x1b\[0J/;

/**
 * What a terminal shows once everything is written: the display uses only newlines, "move up N
 * lines" and "erase to the end of the screen", so those are all this renders (an unknown sequence
 * fails the test rather than being guessed at).
 */
function screenOf(bytes: string): string[] {
  const lines: string[] = [""];
  let row = 0;
  for (const token of bytes.replace(/\r\n/g, "\n").split(/(\x1b\[[0-9;]*[A-Za-z]|\n)/)) {
    if (token === "") continue;
    if (token === "\n") {
      row++;
      if (row === lines.length) lines.push("");
      continue;
    }
    const seq = /^\x1b\[(\d*)([A-Za-z])$/.exec(token);
    if (seq) {
      if (seq[2] === "A") row = Math.max(0, row - Number(seq[1] || 1));
      else if (seq[2] === "J" && (seq[1] === "0" || seq[1] === "")) (lines.splice(row + 1), (lines[row] = ""));
      else throw new Error(`the display wrote a sequence this test does not render: ${JSON.stringify(token)}`);
      continue;
    }
    lines[row] = (lines[row] ?? "") + token.replace(/\r/g, "");
  }
  return lines.filter((l, i) => l !== "" || i < lines.length - 1);
}

describe("run (integration): the live display on a terminal", function () {
  this.timeout(180_000);
  let w: RunWorld;
  afterEach(async () => w?.dispose());

  it("on a pseudo-terminal, Lanes are redrawn in place and only endings and the summary stay on screen", async () => {
    w = await RunWorld.make();
    const [n] = await w.tickets([w.ticket("shown live")]);
    // TICKET_RUNNER_TTY unset: the Run decides by itself that stdout is a terminal.
    const host = w.hostEnv("a", { TICKET_RUNNER_TTY: "" });
    const run = w.cli(["run"], { host, tty: true });
    const code = await run.exited;
    const screen = run.out.join("\n");
    assert.equal(code, 0, screen);
    assert.match(screen, ERASE, "the Lane rows were erased and redrawn");
    assert.match(screen, new RegExp(`lane 1  #${n} [^\\r\\n]*shown live[^\\r\\n]*  implement \\d+ m?s`), "a Lane row: lane, ticket, title, Stage, time");
    assert.match(screen, new RegExp(`#${n} merged: PR #\\d+`), "the ending stays on screen");
    assert.match(screen, /Done: 1 merged\./);
    // The per-event lines are for logs and CI, not for a terminal.
    assert.doesNotMatch(screen, new RegExp(`#${n} implement: `), screen);

    // What is left on the terminal: every log line (stderr, same terminal) survives the redraws,
    // and no Lane row is left behind once the Run has ended.
    const shown = screenOf(screen);
    const logged = run.out.map((l) => l.replace(/\x1b\[\d+A\x1b\[0J/g, "").replace(/\r/g, "")).filter((l) => /^(info|warn): /.test(l));
    assert.ok(logged.length >= 2, `TICKET_RUNNER_LOG=info logs on the same terminal: ${screen}`);
    for (const line of logged) assert.ok(shown.includes(line), `"${line}" was erased by a redraw:\n${shown.join("\n")}`);
    assert.deepEqual(
      shown.filter((l) => l.startsWith("lane ")),
      [],
      `a stale Lane row stayed on screen:\n${shown.join("\n")}`,
    );
    assert.equal((await w.issue(n!)).state, "closed");
  });

  it("the same Run into a pipe prints one plain line per event and no control sequences", async () => {
    w = await RunWorld.make();
    const [n] = await w.tickets([w.ticket("piped")]);
    const run = w.cli(["run"], { host: w.hostEnv("a", { TICKET_RUNNER_TTY: "" }) });
    const code = await run.exited;
    const text = [...run.out, ...run.err].join("\n");
    assert.equal(code, 0, text);
    assert.doesNotMatch(text, /\x1b\[/);
    assert.match(text, new RegExp(`\\[\\d\\d:\\d\\d:\\d\\d\\] #${n} implement: `));
  });
});
