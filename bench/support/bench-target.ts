/**
 * The benchmarks' one Target on a sandbox: a repository with a README (and labels, when named),
 * the rate limit set out of the way (a benchmark measures the product, not the sandbox's limiter),
 * and users with write access. Returns each user's token.
 */
import type { SandboxAdmin } from "../../src/sandbox/admin-client";

export interface BenchTargetOptions<U extends string> {
  owner: string;
  repo: string;
  users: readonly U[];
  labels?: string[];
  /** Requests an hour; default one million. */
  rateLimit?: number;
}

export async function benchTarget<U extends string>(
  admin: Pick<SandboxAdmin, "createRepo" | "addUser" | "setFaults">,
  o: BenchTargetOptions<U>,
): Promise<Record<U, string>> {
  await admin.setFaults({ rateLimit: o.rateLimit ?? 1_000_000 });
  await admin.createRepo({
    owner: o.owner,
    name: o.repo,
    files: { "README.md": "bench\n" },
    ...(o.labels ? { labels: o.labels.map((name) => ({ name })) } : {}),
  });
  const tokens = {} as Record<U, string>;
  for (const login of o.users) tokens[login] = (await admin.addUser({ login, repos: { [`${o.owner}/${o.repo}`]: "write" } })).token;
  return tokens;
}
