/**
 * With `labels.hostLabels` on, `ticket-runner release` run on another Host than the claim's takes
 * off the `claim:<host>` label of the Host named in the lease (it used to try its own and leave the
 * lease's behind). `ticket-runner start <n> --take-over` takes off the displaced lease's Host label
 * in its claim write (it used to stay next to the new holder's). Real CLI processes against the
 * sandbox: one clone, several Host identities.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { useClaimsSandbox } from "./claims-sandbox";
import { runCli, type CliResult } from "./cli-process";

describe("claims (integration): release from another Host and take-over take off the lease's host label", function () {
  this.timeout(120_000);
  const s = useClaimsSandbox({ users: { alice: "write", bob: "write" } });
  let clone: string;

  before(async () => {
    clone = await s.clone("bob", "clone-bob", { lease: { settleMs: 100 }, labels: { hostLabels: true } });
  });

  const asHost = (host: string, args: string[], user = "bob"): Promise<CliResult> =>
    runCli(args, {
      cwd: clone,
      env: {
        TICKET_RUNNER_TOKEN: s.tokens[user]!,
        TICKET_RUNNER_RUN_ROOT: join(s.dir, `runs-${host}`),
        TICKET_RUNNER_HOST_NAME: host,
        TICKET_RUNNER_HOST_SESSION: host,
      },
    });
  const said = (r: CliResult) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  const labels = async (n: number) => [...(await s.tracker("alice").readIssueThread(n))!.issue.labels].sort();

  it("claimed on bob-vm, released from bob-laptop: claim:bob-vm comes off", async () => {
    const n = await s.issue("host label");
    const claimed = await asHost("bob-vm", ["claim", String(n)]);
    assert.equal(claimed.code, 0, said(claimed));
    assert.deepEqual(await labels(n), ["claim:bob-vm", "in-progress"]);
    const released = await asHost("bob-laptop", ["release", String(n)]);
    assert.equal(released.code, 0, said(released));
    assert.deepEqual(await labels(n), ["ready-for-agent"]);
  });

  it("alice's claim on alice-laptop, taken over by bob's start --take-over on bob-laptop: only claim:bob-laptop is left", async () => {
    const n = await s.issue("taken over");
    const claimed = await asHost("alice-laptop", ["claim", String(n)], "alice");
    assert.equal(claimed.code, 0, said(claimed));
    assert.deepEqual(await labels(n), ["claim:alice-laptop", "in-progress"]);
    const taken = await asHost("bob-laptop", ["start", String(n), "--take-over"]);
    assert.equal(taken.code, 0, said(taken));
    assert.deepEqual(await labels(n), ["claim:bob-laptop", "in-progress"]);
    const released = await asHost("bob-laptop", ["release", String(n)]);
    assert.equal(released.code, 0, said(released));
    assert.deepEqual(await labels(n), ["ready-for-agent"]);
  });
});
