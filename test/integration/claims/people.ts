/**
 * People at their own machines for CLI tests: one clone, one run root and one Host per user, all
 * against one claims sandbox, so a test reads as "bob runs this, then boss runs that".
 */
import { join } from "node:path";
import { NAME, OWNER, type ClaimsSuite } from "./claims-sandbox";
import { runCli, type CliResult } from "./cli-process";

export interface People {
  /** `ticket-runner <args>` as `user`, in their clone, with their token, run root and Host. */
  cli(user: string, args: string[]): Promise<CliResult>;
  /** `user`'s run directory for ticket `n`. */
  runDir(user: string, n: number): string;
}

/** Clones the sandbox's repository once per user (Host `<user>-box`) with a short lease settle. */
async function peopleAtTheirMachines(s: ClaimsSuite, users: string[]): Promise<People> {
  const clones = new Map<string, string>();
  const envs = new Map<string, Record<string, string>>();
  for (const user of users) {
    const clone = await s.clone(user, `clone-${user}`, { lease: { settleMs: 100 }, checks: [["true"]] });
    clones.set(user, clone);
    envs.set(user, {
      TICKET_RUNNER_TOKEN: s.tokens[user]!,
      TICKET_RUNNER_RUN_ROOT: join(s.dir, `runs-${user}`),
      TICKET_RUNNER_HOST_NAME: `${user}-box`,
      TICKET_RUNNER_HOST_SESSION: `${user}-box`,
    });
  }
  const known = (user: string) => {
    const clone = clones.get(user);
    const env = envs.get(user);
    if (!clone || !env) throw new Error(`${user} has no clone in this test; add them to peopleAtTheirMachines`);
    return { clone, env };
  };
  return {
    cli: (user, args) => {
      const { clone, env } = known(user);
      return runCli(args, { cwd: clone, env });
    },
    runDir: (user, n) => join(s.dir, `runs-${user}`, `${OWNER}__${NAME}`, `issue-${n}`),
  };
}

/** Call inside a `describe`, after `useClaimsSandbox`: each of `users` at their machine, cloned before the suite. */
export function usePeople(s: ClaimsSuite, users: string[]): People {
  let people: People | undefined;
  before(async () => {
    people = await peopleAtTheirMachines(s, users);
  });
  const ready = (): People => {
    if (!people) throw new Error("the people are not at their machines: use them inside a test, after usePeople's hook");
    return people;
  };
  return { cli: (user, args) => ready().cli(user, args), runDir: (user, n) => ready().runDir(user, n) };
}

/** Everything on the board a command could change about ticket `n`: state, labels, assignees, every comment's body. */
export async function boardOf(s: ClaimsSuite, n: number): Promise<string> {
  const thread = await s.tracker("alice").readIssueThread(n);
  const issue = thread!.issue;
  return JSON.stringify({
    state: issue.state,
    labels: [...issue.labels].sort(),
    assignees: [...issue.assignees].sort(),
    comments: thread!.comments.map((c) => [c.id, c.body]),
  });
}

/** A CLI result, whole, for an assertion message. */
export function said(r: CliResult): string {
  return `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}
