/**
 * Secrets canary: the Target's bot user gets a token no redaction pattern knows (plain hex, no
 * ghp_/trsb_ prefix), so only the product's handling of the token itself can keep it out. Whole
 * Runs use it: one is killed inside a Stage, the next resumes, a third finishes the released ticket.
 * A second Check dumps its environment into the run root (the Checks run code the agent wrote), and
 * a third plants every git hook and each config key that would run a program or redirect the Run's
 * git (url.<x>.insteadOf, http.proxy, core.sshCommand, credential.helper, include.path,
 * core.fsmonitor, core.askPass, core.hooksPath) into the clone's shared .git, each pointing at a
 * program that records its environment, and every redirect at a canary HTTP server (ADR 0150), and
 * a filter and a merge driver with `info/attributes` naming them (ADR 0223); in the sandbox the Checks
 * run in (ADR 0290) each write is refused, and the records say how many were tried. A fourth reads
 * `environ` and `cmdline` of every process it can see, before and after trying to unmount /proc,
 * copies it all where the search looks, and leaves a process running that must be gone at the end.
 * A fifth (test/reliability/support/session-knock.ts) connects to the session's sockets the Host
 * listens on (one in /tmp, two in a runtime dir, named by VS Code's and D-Bus's variables) and
 * writes the home folder (`~/.gitconfig`, a file it includes, `~/.bashrc`, `authorized_keys`): in
 * the sandbox (ADR 0341) no socket answers and no write lands.
 * Then EVERYTHING they wrote is searched for it, in every form a leak could take (the token, its
 * base64, the base64 of the git Basic credential, URL-encoded):
 *   - every file under each clone (working tree, .git text files, .worktrees, .ticket-runner/runs
 *     with every log, .command file and transcript) and under the run root and the demo agent's memory
 *   - every git object in the clone and in the remote's bare repository (commits, State branch,
 *     kept transcripts), decompressed
 *   - every issue title/body, comment and pull request title/body on the sandbox
 *   - the CLI's stdout and stderr
 *   - what every planted program recorded, and every request the canary server received
 *   - everything the snooping Check read in /proc
 * Expected: zero occurrences, no planted program ran, nothing left running, and the clone's
 * .git/config without the planted keys at the end.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createSocketServer, type AddressInfo, type Server as SocketServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { parseComments } from "../../../src/core/claims/claim-view";
import { waitFor } from "../../support/wait-for";
import { HOOKS, plantAttack } from "../support/git-attack";
import { SNOOP_SOURCE, snoopsLeft, type SnoopResult } from "../support/proc-snoop";
import { KNOCK_SOURCE, type KnockResult } from "../support/session-knock";
import { endingOf, viewTickets } from "./observe";
import { killTree, startRun } from "./run-process";
import type { Scenario } from "./scenarios";

const exec = promisify(execFile);

function forms(token: string): string[] {
  return [
    token,
    Buffer.from(token).toString("base64"),
    Buffer.from(`x-access-token:${token}`).toString("base64"),
    encodeURIComponent(token),
    token.slice(0, 24),
  ];
}

function* files(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const p = join(dir, name);
    let st;
    try {
      st = statSync(p, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!st) continue;
    if (st.isDirectory()) yield* files(p);
    else if (st.isFile()) yield p;
  }
}

/** Every object of a repository, decompressed, as one buffer. */
async function allObjects(gitDir: string): Promise<Buffer> {
  const { stdout } = await exec("git", ["--git-dir", gitDir, "cat-file", "--batch-all-objects", "--batch", "--unordered"], {
    encoding: "buffer",
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, LC_ALL: "C" },
  });
  return stdout as unknown as Buffer;
}

export const canaryScenario: Scenario = async (world, o) => {
  const say = o.log ?? (() => undefined);
  // A second Check writes its whole environment where the search below looks: the Checks run code
  // the agent wrote, so a token there could be sent anywhere.
  const dumpEnv =
    'require("node:fs").writeFileSync(require("node:path").join(process.env.TICKET_RUNNER_RUN_ROOT || ".", "check-env-" + process.pid + ".json"), JSON.stringify(process.env))';
  // A third Check plants hooks and config keys in the clone's .git; every redirect points at `caught`.
  const caught: string[] = [];
  const trap = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on("data", (d: Buffer) => body.push(d));
    req.on("end", () => {
      caught.push(`${req.method} ${req.url}\n${req.rawHeaders.join("\n")}\n${Buffer.concat(body).toString("latin1")}`);
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
  const evidence = join(world.dir, "evidence");
  const scratch = join(world.dir, "attack");
  mkdirSync(evidence, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  // The Checks' records go in the clone's git dir (world.host's clone of "canary" as "host-a"): in
  // the sandbox /tmp is the Check's own (ADR 0341), and the search below looks there too.
  const records = join(world.dir, "canary-host-a", ".git", "canary-records");
  const redirectFrom = `${new URL(world.sandbox.apiUrl).origin}/`;
  const redirectTo = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/`;
  const attack = await plantAttack({ root: null, evidence, scratch, records, redirectFrom, redirectTo });
  // A fourth reads environ and cmdline of every process it can see (before and after trying to
  // unmount /proc), copies all of it where the search below looks, and leaves a process running;
  // the Run and its git, where the token is, must be out of its sight (ADR 0290).
  const snooped = join(records, "snooped");
  const snoopCheck = ["node", "-e", SNOOP_SOURCE, join(records, "snoop.json"), "-", "-", "-", snooped];
  // A fifth knocks on the session's sockets and writes the home folder (ADR 0341): the Host listens
  // on one socket in /tmp and two in a runtime dir, named by the variables VS Code and D-Bus set.
  const runtime = join(world.dir, "runtime");
  mkdirSync(runtime, { recursive: true });
  const listening: { server: SocketServer; accepted: number }[] = [];
  const socketPaths = [join(tmpdir(), `tr-canary-ipc-${process.pid}-${Date.now()}.sock`), join(runtime, "vscode-git.sock"), join(runtime, "bus")];
  for (const path of socketPaths) {
    const entry = { server: createSocketServer(), accepted: 0 };
    entry.server.on("connection", (c) => {
      entry.accepted += 1;
      c.destroy();
    });
    await new Promise<void>((r) => entry.server.listen(path, r));
    listening.push(entry);
  }
  const home = join(world.dir, "home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".gitconfig"), `[include]\n\tpath = ${join(home, ".gitinc")}\n`);
  writeFileSync(join(home, ".bashrc"), "# the person's\n");
  // The person's files (the sandbox makes the agents' own state folders beside them; ADR 0341).
  const personal = [".gitconfig", ".gitinc", ".bashrc", join(".ssh", "authorized_keys")].map((f) => join(home, f));
  const homeText = (): string => personal.map((f) => `${f}\n${existsSync(f) ? readFileSync(f, "utf8") : "(none)"}`).join("\n");
  const homeBefore = homeText();
  const knockPlant = `[url "${redirectTo}"]\n\tinsteadOf = ${redirectFrom}\n[credential]\n\thelper = !${join(scratch, "spy.sh")}\n`;
  const knockCheck = ["node", "-e", KNOCK_SOURCE, "-", knockPlant, ...socketPaths];
  const target = await world.target({
    name: "canary",
    config: { checks: [["node", "--test"], ["node", "-e", dumpEnv], ["node", attack.script], snoopCheck, knockCheck] },
  });
  const teammateToken = await world.user("teammate-canary", target.full);
  const canary = `cnry${randomBytes(20).toString("hex")}`;
  await world.restartWithTokens({ [target.login]: canary });
  target.token = canary;
  const host = await world.host(target, "host-a", {
    TICKET_RUNNER_DEMO_TEAMMATE_TOKEN: teammateToken,
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    VSCODE_IPC_HOOK_CLI: socketPaths[0]!,
    VSCODE_GIT_IPC_HANDLE: socketPaths[1]!,
    SSH_AUTH_SOCK: socketPaths[1]!,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${socketPaths[2]!}`,
  });
  mkdirSync(snooped, { recursive: true });
  const args = ["--repo", target.full, "--api-url", world.sandbox.apiUrl];
  const outputs: string[] = [];
  const violations: string[] = [];

  // Run 1 is killed inside a Stage; run 2 resumes and ends (a hand-off and a release); run 3 finishes the release.
  const first = startRun(host.clone, host.env, args);
  await waitFor(
    async () =>
      (await viewTickets(world, target)).some((v) => parseComments(v.comments, target.full, v.number).candidates.some((r) => r.lease?.state === "running")),
    { timeoutMs: 120_000, intervalMs: 200, what: "a Stage to run" },
  );
  await killTree(first);
  outputs.push(first.stdout(), first.stderr());
  for (let i = 0; i < 3; i++) {
    const run = startRun(host.clone, host.env, args);
    const { code } = await run.exited;
    outputs.push(run.stdout(), run.stderr());
    say(`canary: run ${i + 2} exited ${code}`);
    const views = await viewTickets(world, target);
    if (views.every((v) => endingOf(v) === "merged" || endingOf(v) === "handed-off")) break;
  }
  const views = await viewTickets(world, target);
  const used = (await world.sandbox.admin.requestLog()).filter((r) => r.user === target.login).length;
  if (used === 0) violations.push("the canary token was never used: nothing was proven");

  const needles = forms(canary).map((f) => Buffer.from(f));
  // The search itself must be able to fail: a header leaked the way git would print it is found.
  const plantedDir = join(world.dir, "planted");
  mkdirSync(plantedDir, { recursive: true });
  writeFileSync(join(plantedDir, "trace.txt"), `> Authorization: Basic ${Buffer.from(`x-access-token:${canary}`).toString("base64")}\n`);
  const planted = [...files(plantedDir)].some((f) => needles.some((n) => readFileSync(f).includes(n)));
  if (!planted) violations.push("the search did not find a planted leak: it proves nothing");
  let searched = 0;
  let bytes = 0;
  const look = (where: string, data: Buffer | string): void => {
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    searched += 1;
    bytes += buf.length;
    for (const n of needles) if (buf.includes(n)) violations.push(`the canary token (as ${JSON.stringify(n.toString().slice(0, 12))}…) is in ${where}`);
  };

  for (const root of [host.clone, host.runRoot, host.env.TICKET_RUNNER_DEMO_STATE!]) {
    for (const f of files(root)) look(relative(world.dir, f), readFileSync(f));
  }
  look(`every git object of the clone`, await allObjects(join(host.clone, ".git")));
  look(`every git object of the remote (commits, State branch, kept transcripts)`, await allObjects(target.gitDir));
  const gh = world.adminOctokit;
  const base = { owner: target.owner, repo: target.name };
  for (const v of views) {
    look(`#${v.number}'s title`, v.title);
    for (const c of v.comments) look(`comment ${c.url}`, c.body);
  }
  for (const p of await gh.paginate(gh.rest.pulls.list, { ...base, state: "all", per_page: 100 })) look(`PR #${p.number}`, `${p.title}\n${p.body ?? ""}`);
  for (const i of await gh.paginate(gh.rest.issues.listForRepo, { ...base, state: "all", per_page: 100 }))
    look(`issue #${i.number}`, `${i.title}\n${i.body ?? ""}`);
  outputs.forEach((text, i) => look(`CLI ${i % 2 === 0 ? "stdout" : "stderr"} of run ${Math.floor(i / 2) + 1}`, text));

  for (const f of files(evidence)) look(`what a planted program recorded (${relative(evidence, f)})`, readFileSync(f));
  for (const f of files(snooped)) look(`what the snooping Check read (${relative(snooped, f)})`, readFileSync(f));
  for (const f of files(home)) look(`the home folder (${relative(home, f)})`, readFileSync(f));
  caught.forEach((request, i) => look(`request ${i + 1} at the canary server`, request));
  await new Promise<void>((r) => trap.close(() => r()));
  // The plant must have been tried; in the sandbox (ADR 0290) every write into the clone's .git is
  // refused, and where one landed (isolation "none") the guard must have set it aside.
  const setAside = join(host.clone, ".ticket-runner", "set-aside");
  const recordsOf = (dir: string, kind: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => new RegExp(`^${kind}-.+\\.json$`).test(f))
          .map((f) => readFileSync(join(dir, f), "utf8"))
      : [];
  const plants = recordsOf(records, "plant").map((t) => JSON.parse(t) as { tried: number; written: number });
  const tried = plants.reduce((n, p) => n + p.tried, 0);
  const written = plants.reduce((n, p) => n + p.written, 0);
  if (tried === 0) violations.push("the Check's plant never ran: nothing about git was proven");
  if (written > 0 && (!existsSync(setAside) || readdirSync(setAside).length === 0))
    violations.push("the Check's plant landed and was never found and put back");
  if (readFileSync(join(host.clone, ".git", "config"), "utf8").includes(scratch)) violations.push("the clone's .git/config still holds the planted keys");
  const ran = [...files(evidence)].length;
  if (ran > 0) violations.push(`${ran} records of planted programs that ran`);
  // The snooping Check: it ran, read what it could see, and left nothing running.
  const snoops = recordsOf(records, "snoop").map((t) => JSON.parse(t) as SnoopResult);
  if (snoops.length === 0) violations.push("the snooping Check never ran: nothing about /proc was proven");
  const left = await snoopsLeft();
  if (left > 0) violations.push(`${left} processes a Check left behind are still running`);
  const snoopPlaces = snoops.reduce((n, r) => n + r.places, 0);
  const procAttack = `a Check read environ and cmdline of every process it saw ${snoops.length} times (${snoopPlaces} reads, at most ${Math.max(0, ...snoops.map((r) => r.pids))} pids in one scan; /proc unmounts refused ${snoops.reduce((n, r) => n + r.umounts.filter((u) => !u.endsWith("exit 0")).length, 0)} of ${snoops.reduce((n, r) => n + r.umounts.length, 0)}), ${left} of ${snoops.length} left-behind processes still running`;

  // The knocking Check: it ran; no socket of the session answered it, no home write landed.
  const commonDir = join(host.clone, ".git");
  const knocks = recordsOf(commonDir, "knock").map((t) => JSON.parse(t) as KnockResult);
  for (const entry of listening) await new Promise<void>((r) => entry.server.close(() => r()));
  for (const path of socketPaths) rmSync(path, { force: true });
  const answered = listening.reduce((n, e) => n + e.accepted, 0);
  const homeWrites = knocks.reduce((n, k) => n + k.writes.length, 0);
  if (knocks.length === 0) violations.push("the knocking Check never ran: nothing about the session's sockets or the home folder was proven");
  if (answered > 0) violations.push(`the session's sockets accepted ${answered} connections from the Checks`);
  if (homeWrites > 0) violations.push(`${homeWrites} writes into the home folder landed`);
  if (homeText() !== homeBefore) violations.push("the home folder changed during the Runs");
  const sessionAttack = `a Check knocked ${knocks.length} times on ${socketPaths.length} session sockets (${answered} of ${knocks.length * socketPaths.length} connections accepted, ${knocks.reduce((n, k) => n + k.looked, 0)} entries of the temp folders and runtime dir looked at) and tried ${knocks.reduce((n, k) => n + k.tried, 0)} home writes (${homeWrites} landed)`;

  const endings = views.map(endingOf);
  const gitAttack = `${HOOKS.length} hooks, ${attack.keys.length} config keys and ${attack.driverKeys.length} filter and merge-driver keys planted by a Check ${plants.length} times: ${written} of ${tried} writes into the clone's .git landed, ${ran} planted programs ran, ${caught.length} requests at the canary server; ${procAttack}; ${sessionAttack}`;
  const summary = `${searched} files/objects/bodies/requests searched (${Math.round(bytes / 1024)} KiB) for ${needles.length} forms of a token used in ${used} requests over ${outputs.length / 2} Runs (one killed); ${gitAttack}; endings ${endings.join(" ")}; ${violations.length} occurrences`;
  return {
    summary,
    violations,
    figureId: "secrets.canary",
    figure: {
      what: "a canary token used for whole Runs appears nowhere the Runs wrote",
      test: "test/reliability/chaos/canary.ts",
      trials: 1,
      kills: 1,
      inputs: searched,
      losses: violations.length,
      notes: `${searched} places, ${Math.round(bytes / 1024)} KiB searched, ${used} requests made with the canary; ${gitAttack}`,
    },
  };
};
