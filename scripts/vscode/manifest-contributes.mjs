// Sets ONLY the VS Code manifest keys of package.json that the VS Code area owns
// (contributes, activationEvents, categories, icon, galleryBanner, keywords, capabilities).
// Other helpers edit other keys concurrently, so this re-reads the file and touches nothing else.
// Run: node scripts/vscode/manifest-contributes.mjs
import { readFileSync, writeFileSync } from "node:fs";

const C = "Ticket Runner";
const command = (id, title, icon, extra = {}) => ({ command: `ticketRunner.${id}`, title, category: C, icon: `$(${icon})`, ...extra });

const commands = [
  command("start", "Start", "play"),
  command("stop", "Stop", "debug-stop"),
  command("claim", "Claim", "pinned"),
  command("startOnTicket", "Start on Ticket", "run"),
  command("takeOver", "Take Over…", "arrow-swap"),
  command("release", "Release", "unlock"),
  command("handOff", "Hand Off to a Person", "person"),
  command("handBack", "Hand Back", "reply"),
  command("refresh", "Refresh", "refresh"),
  command("showTranscript", "Show Transcript", "output"),
  command("signIn", "Sign In", "sign-in"),
  command("init", "Prepare Repository (init)", "tools"),
  command("openIssue", "Open Issue", "issues"),
  command("openWorktree", "Open Worktree", "folder-opened"),
  command("filterMine", "Show Only My Tickets", "filter"),
  command("filterAll", "Show All Tickets", "filter-filled"),
];

// Row actions need a ticket row; from the palette they would have nothing to act on.
const needsRow = ["claim", "takeOver", "release", "handOff", "handBack", "showTranscript", "openIssue", "openWorktree"];
const ticket = (flag) => `view == ticketRunner.board && viewItem =~ /^ticketRunner:ticket\\b.*\\+${flag}\\b/`;

const menus = {
  commandPalette: [
    ...needsRow.map((id) => ({ command: `ticketRunner.${id}`, when: "false" })),
    { command: "ticketRunner.start", when: "!ticketRunner.running" },
    { command: "ticketRunner.stop", when: "ticketRunner.running" },
    { command: "ticketRunner.filterMine", when: "!ticketRunner.filterMine" },
    { command: "ticketRunner.filterAll", when: "ticketRunner.filterMine" },
  ],
  "view/title": [
    { command: "ticketRunner.start", when: "view == ticketRunner.board && !ticketRunner.running", group: "navigation@1" },
    { command: "ticketRunner.stop", when: "view == ticketRunner.board && ticketRunner.running", group: "navigation@1" },
    { command: "ticketRunner.filterMine", when: "view == ticketRunner.board && !ticketRunner.filterMine", group: "navigation@2" },
    { command: "ticketRunner.filterAll", when: "view == ticketRunner.board && ticketRunner.filterMine", group: "navigation@2" },
    { command: "ticketRunner.refresh", when: "view == ticketRunner.board", group: "navigation@3" },
    { command: "ticketRunner.signIn", when: "view == ticketRunner.board && !ticketRunner.signedIn", group: "9_account@1" },
  ],
  "view/item/context": [
    { command: "ticketRunner.startOnTicket", when: ticket("(free|stranded)"), group: "inline@1" },
    { command: "ticketRunner.startOnTicket", when: ticket("(free|stranded)"), group: "1_run@1" },
    { command: "ticketRunner.claim", when: ticket("free"), group: "1_run@2" },
    // Not a claim this Host holds: there is nothing here to take over from.
    {
      command: "ticketRunner.takeOver",
      when: "view == ticketRunner.board && viewItem =~ /^ticketRunner:ticket\\b(?!.*\\+here\\b).*\\+claimed\\b/",
      group: "1_run@3",
    },
    { command: "ticketRunner.release", when: ticket("mine"), group: "2_claim@1" },
    { command: "ticketRunner.handOff", when: ticket("mine"), group: "2_claim@2" },
    // "Needs a person" rows: back to the Runs (ready-for-human -> ready-for-agent).
    { command: "ticketRunner.handBack", when: ticket("human"), group: "2_claim@3" },
    { command: "ticketRunner.showTranscript", when: ticket("transcript"), group: "3_open@1" },
    { command: "ticketRunner.openWorktree", when: ticket("worktree"), group: "3_open@2" },
    { command: "ticketRunner.openIssue", when: "view == ticketRunner.board && viewItem =~ /^ticketRunner:ticket\\b/", group: "3_open@3" },
    // The board's error row: Retry.
    { command: "ticketRunner.refresh", when: "view == ticketRunner.board && viewItem == ticketRunner:error", group: "inline" },
  ],
};

const viewsWelcome = [
  {
    view: "ticketRunner.board",
    when: "ticketRunner.ready && !ticketRunner.signedIn",
    contents:
      "Sign in to GitHub to see this repository's tickets and claim them.\n[Sign In](command:ticketRunner.signIn)\nUsing the local sandbox? Start VS Code with TICKET_RUNNER_API_URL and TICKET_RUNNER_TOKEN set instead.",
  },
  {
    view: "ticketRunner.board",
    when: "ticketRunner.ready && ticketRunner.signedIn && ticketRunner.noRemote",
    contents:
      "This folder has no GitHub remote, so there is no Target to show.\n[Open Folder](command:workbench.action.files.openFolder)\nOpen a clone of a GitHub repository, or add its remote with git remote add origin URL.",
  },
  {
    view: "ticketRunner.board",
    when: "ticketRunner.ready && ticketRunner.signedIn && !ticketRunner.noRemote && ticketRunner.noReadyTickets",
    contents:
      "No open issue is labelled ready-for-agent. Label one on GitHub, then refresh.\n[Open Issues](command:ticketRunner.openIssue)\n[Refresh](command:ticketRunner.refresh)",
  },
];

const setting = (type, def, markdownDescription, extra = {}) => ({ type, default: def, markdownDescription, ...extra });
const configuration = {
  title: C,
  properties: {
    "ticketRunner.lanes": setting(
      "integer",
      1,
      "How many tickets a Run works on at once (its Lanes). A value set here overrides `lanes` in the repository's `ticket-runner.json`.",
      { minimum: 1, maximum: 16 },
    ),
    "ticketRunner.agent": setting("string", "claude", "The coding agent each Stage runs. A value set here overrides `agent.kind` in `ticket-runner.json`.", {
      enum: ["claude", "codex", "gemini", "demo", "command"],
      markdownEnumDescriptions: [
        "Claude Code (`claude` on the `PATH`).",
        "OpenAI's Codex CLI (`codex` on the `PATH`), in its workspace-write sandbox.",
        "Google's Gemini CLI (`gemini` on the `PATH`), allowed only the Stage's git commands and the Checks.",
        "The scripted demo agent that ships with Ticket Runner (for the sandbox and tests).",
        "Your own command, from `#ticketRunner.agentCommand#`; it receives the same arguments as `claude`.",
      ],
    }),
    "ticketRunner.agentCommand": setting(
      "array",
      [],
      "The command line (program and arguments, no shell) run when `#ticketRunner.agent#` is `command`. Set it in your user settings: a workspace cannot choose what runs on your machine.",
      { items: { type: "string" }, scope: "machine" },
    ),
    "ticketRunner.apiUrl": setting(
      "string",
      "",
      "The GitHub API to talk to. Empty means `https://api.github.com`, or `TICKET_RUNNER_API_URL` when that is set. Point it at GitHub Enterprise (`https://HOST/api/v3`) or at the local sandbox (`http://127.0.0.1:PORT`). The token comes from VS Code's GitHub sign-in; `TICKET_RUNNER_TOKEN` overrides it, and so does `GITHUB_TOKEN` for a URL other than github.com. User settings only: a workspace cannot send your token elsewhere.",
      { scope: "machine", format: "uri" },
    ),
    "ticketRunner.refreshIntervalSeconds": setting(
      "integer",
      60,
      "How often the board checks GitHub for changes, in seconds. Idle checks are conditional requests and cost no rate limit. `0` turns auto-refresh off.",
      { minimum: 0, maximum: 3600 },
    ),
    "ticketRunner.worktreeFolders": setting(
      "string",
      "off",
      "What happens to each ticket's worktree in this window while a Run works on it. By default nothing: **Open Worktree** (board row, status-bar tooltip) adds it when you ask, because adding a folder while a Run streams stalls this window's extension host for a few hundred milliseconds (ADR 0265). Folders are only added to a window that has a workspace file (a `.code-workspace`, or several folders open): adding one to a single-folder window would make VS Code restart the extension host, which kills the Run. In a single-folder window you get a notification with **Open in New Window** instead.",
      {
        enum: ["add-and-remove", "add-and-keep", "new-window", "off"],
        markdownEnumDescriptions: [
          "Add it as a workspace folder named `#42 title` when its first Stage starts; remove it after the merge (hand-offs keep theirs).",
          "Add it as a workspace folder and keep it after the merge.",
          "Open it in a new window instead (this window's folders never change).",
          "Do not open worktrees during the Run; **Open Worktree** on a ticket adds it when you ask (the default).",
        ],
      },
    ),
    "ticketRunner.notifications": setting(
      "string",
      "handoffs",
      "Which events of a Run pop up a notification. The log (**Ticket Runner** output channel) and each ticket's transcript channel have everything either way.",
      {
        enum: ["all", "handoffs", "none"],
        markdownEnumDescriptions: [
          "Every hand-off, every merge and the Run's summary.",
          "Hand-offs (with a button to the comment) and the Run's summary; merges stay quiet.",
          "None; everything is still in the **Ticket Runner** output channel.",
        ],
      },
    ),
    "ticketRunner.runRoot": setting(
      "string",
      "",
      "Where run directories live on this Host (claims, transcripts, Stage logs). Empty means the CLI's default. Keep it on a local disk: the claim relies on an exclusive file create.",
      { scope: "machine" },
    ),
  },
};

const walkthroughs = [
  {
    id: "gettingStarted",
    title: "Get started with Ticket Runner",
    description: "Let coding agents drain this repository's ready-for-agent issues.",
    steps: [
      {
        id: "signIn",
        title: "Sign in to GitHub",
        description: "Ticket Runner claims tickets as you.\n[Sign In](command:ticketRunner.signIn)",
        media: { markdown: "media/walkthrough/sign-in.md" },
        completionEvents: ["onCommand:ticketRunner.signIn"],
      },
      {
        id: "init",
        title: "Prepare the repository",
        description: "Create the labels and `ticket-runner.json` once per repository, then commit the file.\n[Prepare Repository](command:ticketRunner.init)",
        media: { markdown: "media/walkthrough/init.md" },
        completionEvents: ["onCommand:ticketRunner.init"],
      },
      {
        id: "label",
        title: "Label a ticket",
        description: "Add the `ready-for-agent` label to an issue with acceptance criteria.\n[Show the Board](command:ticketRunner.board.focus)",
        media: { markdown: "media/walkthrough/label.md" },
        completionEvents: ["onView:ticketRunner.board"],
      },
      {
        id: "start",
        title: "Start a Run",
        description: "Agents claim tickets, open pull requests and merge them.\n[Start](command:ticketRunner.start)",
        media: { markdown: "media/walkthrough/start.md" },
        completionEvents: ["onCommand:ticketRunner.start"],
      },
    ],
  },
];

const contributes = {
  viewsContainers: { activitybar: [{ id: "ticketRunner", title: C, icon: "media/ticket-runner.svg" }] },
  views: { ticketRunner: [{ id: "ticketRunner.board", name: "Board", icon: "media/ticket-runner.svg", contextualTitle: C }] },
  viewsWelcome,
  commands,
  menus,
  configuration,
  walkthroughs,
};

const path = new URL("../../package.json", import.meta.url);
const pkg = JSON.parse(readFileSync(path, "utf8"));
// Empty on purpose: since VS Code 1.74 contributed views and commands imply onView/onCommand
// activation, so the extension activates only when the Board is shown or a command runs (ADR 0020).
pkg.activationEvents = [];
pkg.categories = ["Other", "AI"];
pkg.keywords = ["github", "issues", "agents", "claude", "automation"];
pkg.icon = "media/icon.png";
pkg.galleryBanner = { color: "#1e1e1e", theme: "dark" };
pkg.contributes = contributes;
// Restricted Mode (ADR 0230): the board shows, read-only; every command that writes to GitHub, runs
// git or starts an agent is refused, and a workspace's own agent and lanes settings are ignored.
pkg.capabilities = {
  untrustedWorkspaces: {
    supported: "limited",
    description:
      "In Restricted Mode the board is read-only: Start, Claim and every command that writes to GitHub, runs git or starts an agent are refused, because the repository's ticket-runner.json chooses the programs a Run starts. Trust the folder to work on its tickets.",
    restrictedConfigurations: ["ticketRunner.agent", "ticketRunner.lanes"],
  },
};
writeFileSync(path, JSON.stringify(pkg, null, 2) + "\n");
console.log(
  `package.json: contributes ${commands.length} commands, 1 view, ${configuration.properties ? Object.keys(configuration.properties).length : 0} settings`,
);
