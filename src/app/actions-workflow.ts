/**
 * The GitHub Actions workflow `ticket-runner init --actions` writes: a pure function of its options
 * to YAML text (ADR 0210, docs/actions.md). Every value that reaches the text is checked against a
 * narrow pattern first, so nothing can break out of its YAML scalar or its shell line; anything that
 * comes from an event (the sender, the tickets input) is passed through `env:`, never spliced into
 * a script.
 */
import { z } from "zod";

export const WORKFLOW_PATH = ".github/workflows/ticket-runner.yml";

/** The Actions runner kills a job at 6 h; the job ends before that, and SIGTERM (a Stop) comes first. */
export const JOB_TIMEOUT_MINUTES = 340;
const STOP_AFTER_MINUTES = 280;

const AGENT_PACKAGES = {
  claude: "@anthropic-ai/claude-code",
  codex: "@openai/codex",
  gemini: "@google/gemini-cli",
} as const;

/** The command each agent package puts on PATH. */
const AGENT_BINARIES = { claude: "claude", codex: "codex", gemini: "gemini" } as const;

const DEFAULT_AGENT_SECRETS = {
  claude: ["ANTHROPIC_API_KEY"],
  codex: ["OPENAI_API_KEY"],
  gemini: ["GEMINI_API_KEY"],
} as const;

const secretName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,99}$/, "a secret or variable name: capitals, digits and _, not starting with a digit");
/** Five cron fields of digits and `*,-/`: what GitHub's `schedule` takes, and nothing that could close the quoted scalar. */
const cron = z.string().regex(/^[0-9*,/-]+( [0-9*,/-]+){4}$/, 'a five-field cron expression such as "*/30 * * * *"');

export const ActionsWorkflowOptions = z
  .object({
    hosts: z.number().int().min(1).max(20).default(2),
    lanes: z.number().int().min(1).max(16).default(1),
    schedule: cron.default("*/30 * * * *"),
    agent: z.enum(["claude", "codex", "gemini"]).default("claude"),
    readyLabel: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,49}$/, "a label of letters, digits, space and ._:-")
      .default("ready-for-agent"),
    agentSecrets: z.array(secretName).max(10).optional(),
    appIdVariable: secretName.default("TICKET_RUNNER_APP_ID"),
    appKeySecret: secretName.default("TICKET_RUNNER_APP_PRIVATE_KEY"),
    cliVersion: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$/, "an exact version such as 0.1.0"),
    /** The CLI's single-file bundle, committed in the Target by init (ticket-runner is not on npm; ADR 0282). */
    cliFile: z
      .string()
      .regex(/^\.github\/ticket-runner\/ticket-runner-[0-9A-Za-z.-]+\.cjs$/, "a path .github/ticket-runner/ticket-runner-<version>-<hash>.cjs"),
    cliSha256: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex"),
  })
  .strict();
export type ActionsWorkflowOptions = z.input<typeof ActionsWorkflowOptions>;

/** The workflow's YAML text; throws a ZodError naming the option when one is out of range. */
export function actionsWorkflow(input: ActionsWorkflowOptions): string {
  const o = ActionsWorkflowOptions.parse(input);
  const secrets = o.agentSecrets ?? [...DEFAULT_AGENT_SECRETS[o.agent]];
  const agentEnv = secrets.map((s) => `          ${s}: \${{ secrets.${s} }}`).join("\n");
  return `# Written by \`ticket-runner init --actions\` (docs/actions.md). Each Host is one matrix job
# running \`ticket-runner run\`; GitHub is the shared board, leases and lockScope "host" coordinate.
name: ticket-runner

on:
  issues:
    types: [labeled]
  schedule:
    - cron: "${o.schedule}"
  workflow_dispatch:
    inputs:
      hosts:
        description: "How many Hosts (parallel jobs), 1-20"
        type: number
        default: ${o.hosts}
      lanes:
        description: "Lanes per Host, 1-16"
        type: number
        default: ${o.lanes}
      tickets:
        description: "Only these ticket numbers, space-separated (empty: the whole Frontier)"
        type: string
        default: ""

# Two triggers never double the Hosts: a second run waits for the first (one drains the whole Frontier).
concurrency:
  group: ticket-runner
  cancel-in-progress: false

# The workflow's own token only reads; every write goes through the GitHub App's token below.
permissions:
  contents: read

jobs:
  plan:
    # Only the ready label, and only when someone with write access applied it (the Run checks again).
    if: "\${{ github.event_name != 'issues' || github.event.label.name == '${o.readyLabel}' }}"
    runs-on: ubuntu-latest
    timeout-minutes: 5
    outputs:
      hosts: \${{ steps.plan.outputs.hosts }}
      lanes: \${{ steps.plan.outputs.lanes }}
      tickets: \${{ steps.plan.outputs.tickets }}
    steps:
      - name: Check the label was applied by a writer
        if: github.event_name == 'issues'
        env:
          GH_TOKEN: \${{ github.token }}
          SENDER: \${{ github.event.sender.login }}
          REPO: \${{ github.repository }}
        run: |
          permission="$(gh api "repos/$REPO/collaborators/$SENDER/permission" --jq .permission)"
          case "$permission" in
            admin|maintain|write) echo "label applied by a writer ($permission)" ;;
            *) echo "::error::the ready label was applied by someone without write access ($permission); no Run"; exit 1 ;;
          esac
      - name: Plan the Hosts
        id: plan
        env:
          IN_HOSTS: \${{ inputs.hosts }}
          IN_LANES: \${{ inputs.lanes }}
          IN_TICKETS: \${{ inputs.tickets }}
        run: |
          hosts="\${IN_HOSTS:-${o.hosts}}"; lanes="\${IN_LANES:-${o.lanes}}"
          [[ "$hosts" =~ ^[0-9]+$ ]] && (( hosts >= 1 && hosts <= 20 )) || { echo "::error::hosts must be 1-20, not $hosts"; exit 1; }
          [[ "$lanes" =~ ^[0-9]+$ ]] && (( lanes >= 1 && lanes <= 16 )) || { echo "::error::lanes must be 1-16, not $lanes"; exit 1; }
          [[ "$IN_TICKETS" =~ ^[0-9\\ ]*$ ]] || { echo "::error::tickets must be numbers separated by spaces"; exit 1; }
          echo "hosts=$(seq -s, 1 "$hosts" | sed 's/^/[/; s/$/]/')" >> "$GITHUB_OUTPUT"
          echo "lanes=$lanes" >> "$GITHUB_OUTPUT"
          echo "tickets=$IN_TICKETS" >> "$GITHUB_OUTPUT"

  host:
    needs: plan
    runs-on: ubuntu-latest
    # Below the runner's 6 h limit; the Run is sent a Stop (SIGTERM) at ${STOP_AFTER_MINUTES} min so busy Lanes can finish.
    timeout-minutes: ${JOB_TIMEOUT_MINUTES}
    strategy:
      fail-fast: false
      matrix:
        host: \${{ fromJSON(needs.plan.outputs.hosts) }}
    steps:
      - name: GitHub App installation token (its pushes start CI; the workflow's own token's would not)
        id: app-token
        uses: actions/create-github-app-token@v2
        with:
          app-id: \${{ vars.${o.appIdVariable} }}
          private-key: \${{ secrets.${o.appKeySecret} }}
          permission-contents: write
          permission-issues: write
          permission-pull-requests: write
          permission-checks: read
          permission-statuses: read
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          # The agent works in this clone: no token is left in .git/config for it to find.
          persist-credentials: false
      - uses: actions/setup-node@v4
        with:
          node-version: 22
      - name: Cache node_modules
        uses: actions/cache@v4
        with:
          path: node_modules
          key: node-modules-\${{ runner.os }}-\${{ hashFiles('package-lock.json') }}
      - name: Cache the agent
        uses: actions/cache@v4
        with:
          path: \${{ runner.temp }}/ticket-runner-tools
          key: agent-\${{ runner.os }}-${o.agent}-${o.cliVersion}
      # ticket-runner is not on npm: init --actions committed its single-file CLI and pinned its checksum
      # here, where the App token cannot write (no workflows permission). A changed file stops the job.
      - name: Install the agent, and ticket-runner from this repository
        env:
          TOOLS: \${{ runner.temp }}/ticket-runner-tools
        run: |
          echo "${o.cliSha256}  ${o.cliFile}" | sha256sum --check --strict || { echo "::error file=${o.cliFile}::${o.cliFile} is not the file ticket-runner init --actions wrote (its checksum is in this workflow); write both again with ticket-runner init --actions"; exit 1; }
          if [ ! -x "$TOOLS/bin/${AGENT_BINARIES[o.agent]}" ]; then
            npm install --global --prefix "$TOOLS" ${AGENT_PACKAGES[o.agent]}
          fi
          install -D -m 0755 "${o.cliFile}" "$TOOLS/bin/ticket-runner"
          echo "$TOOLS/bin" >> "$GITHUB_PATH"
      - name: Require lockScope "host"
        run: |
          jq -e '.lockScope == "host"' ticket-runner.json > /dev/null || { echo '::error file=ticket-runner.json::set "lockScope": "host" in ticket-runner.json: several Hosts drain this Target at once'; exit 1; }
      - name: ticket-runner run
        env:
          TICKET_RUNNER_TOKEN: \${{ steps.app-token.outputs.token }}
          TICKET_RUNNER_HOST_NAME: actions-host-\${{ matrix.host }}
          # One session per matrix job: each is a Host of its own (its own lock file, its own leases).
          # One session per matrix job: each is a Host of its own (its own lock file, its own leases).
          TICKET_RUNNER_HOST_SESSION: \${{ github.run_id }}-\${{ github.run_attempt }}-\${{ matrix.host }}
          TICKET_RUNNER_RUN_ROOT: \${{ runner.temp }}/ticket-runner-runs
          LANES: \${{ needs.plan.outputs.lanes }}
          TICKETS: \${{ needs.plan.outputs.tickets }}
${agentEnv}
        # $TICKETS was checked to be digits and spaces in the plan job; word splitting is intended.
        run: timeout --preserve-status --signal=TERM ${STOP_AFTER_MINUTES}m ticket-runner run --lanes "$LANES" $TICKETS
`;
}
