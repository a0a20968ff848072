import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

// The manifest's internal consistency, checked without a VS Code. That each contributed command is
// really registered is checked inside VS Code (test/vscode/suite/commands.test.ts).
const root = join(__dirname, "..", "..", "..");
interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  activationEvents: string[];
  capabilities?: { untrustedWorkspaces?: { supported: boolean | "limited"; description?: string; restrictedConfigurations?: string[] } };
  icon: string;
  engines: { vscode: string };
  contributes: {
    commands: { command: string; title: string; category: string; icon: string }[];
    menus: Record<string, MenuItem[]>;
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    views: Record<string, { id: string; icon?: string }[]>;
    viewsWelcome: { view: string; contents: string; when: string }[];
    configuration: { properties: Record<string, { markdownDescription?: string; scope?: string }> };
    walkthroughs: { steps: { media: { markdown?: string } }[] }[];
  };
};
const c = pkg.contributes;
const ids = new Set(c.commands.map((x) => x.command));

describe("package.json contributes", () => {
  it("activates lazily: no '*' and no onStartupFinished", () => {
    assert.ok(!pkg.activationEvents.some((e) => e === "*" || e === "onStartupFinished"), pkg.activationEvents.join(", "));
  });

  it("admits VS Code 1.100 (the code-server release that runs here)", () => {
    assert.match(pkg.engines.vscode, /^\^1\.(\d+)\./);
    assert.ok(Number(/^\^1\.(\d+)\./.exec(pkg.engines.vscode)?.[1]) <= 100);
  });

  it("declares Workspace Trust: limited, with the settings that choose what runs restricted (ADR 0230)", () => {
    const trust = pkg.capabilities?.untrustedWorkspaces;
    assert.equal(trust?.supported, "limited", "without a declaration VS Code would not ask, and a Run could start in Restricted Mode");
    assert.match(trust?.description ?? "", /read-only/);
    for (const key of ["ticketRunner.agent", "ticketRunner.lanes"]) assert.ok(trust?.restrictedConfigurations?.includes(key), `${key} is not restricted`);
    for (const key of trust?.restrictedConfigurations ?? []) assert.ok(c.configuration.properties[key], `${key} is not a setting`);
  });

  it("menus only name contributed commands", () => {
    for (const [menu, items] of Object.entries(c.menus)) {
      for (const item of items) assert.ok(ids.has(item.command), `${menu} names ${item.command}, which is not contributed`);
    }
  });

  it("gates row actions on the composable ticket contextValue", () => {
    const when = (id: string) => c.menus["view/item/context"]!.filter((m) => m.command === `ticketRunner.${id}`).map((m) => m.when ?? "");
    const flags: Record<string, string> = {
      claim: "free",
      startOnTicket: "(free|stranded)",
      takeOver: "claimed",
      release: "mine",
      handOff: "mine",
      handBack: "human",
      openWorktree: "worktree",
      showTranscript: "transcript",
    };
    for (const [id, flag] of Object.entries(flags)) {
      const clauses = when(id);
      assert.ok(clauses.length > 0, `${id} has no context-menu entry`);
      for (const w of clauses) assert.ok(w.includes("viewItem =~ /^ticketRunner:ticket\\b") && w.includes(`\\+${flag}`), `${id}: ${w}`);
    }
  });

  it("hides row actions from the Command Palette", () => {
    const hidden = new Set(c.menus["commandPalette"]!.filter((m) => m.when === "false").map((m) => m.command));
    for (const id of ["claim", "takeOver", "release", "handOff", "handBack", "showTranscript", "openIssue", "openWorktree"]) {
      assert.ok(hidden.has(`ticketRunner.${id}`), `${id} shows in the palette`);
    }
    assert.ok(!hidden.has("ticketRunner.refresh"));
  });

  it("has welcome views for signed out, no remote and no ready tickets", () => {
    const whens = c.viewsWelcome.map((w) => w.when);
    assert.ok(whens.some((w) => w.includes("!ticketRunner.signedIn")));
    assert.ok(whens.some((w) => w.includes("ticketRunner.noRemote")));
    assert.ok(whens.some((w) => w.includes("ticketRunner.noReadyTickets")));
    assert.ok(c.viewsWelcome.some((w) => w.contents.includes("(command:ticketRunner.signIn)")));
  });

  it("describes every setting in Markdown; settings that could redirect a token or run a program are machine-scoped", () => {
    for (const [key, prop] of Object.entries(c.configuration.properties)) {
      assert.ok(key.startsWith("ticketRunner."), key);
      assert.ok((prop.markdownDescription ?? "").length > 20, `${key} lacks a markdownDescription`);
    }
    for (const key of ["ticketRunner.apiUrl", "ticketRunner.agentCommand", "ticketRunner.runRoot"]) {
      assert.equal(c.configuration.properties[key]?.scope, "machine", key);
    }
  });

  it("points at files that exist", () => {
    const files = [pkg.icon, ...c.viewsContainers.activitybar.map((v) => v.icon), ...c.walkthroughs.flatMap((w) => w.steps.map((s) => s.media.markdown ?? ""))];
    for (const f of files) assert.ok(existsSync(join(root, f)), `${f} is missing`);
  });
});
