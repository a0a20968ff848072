import { strict as assert } from "node:assert";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashHostId, parseProcStat, resolveHostIdentity } from "../../../src/adapters/node-host";

describe("workspace: the Node Host", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "tr-host-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads field 22 of /proc/<pid>/stat even when the command name holds spaces and parentheses", () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = "S";
    const stat = `4321 (my (odd) prog) ${fields.join(" ")}`;
    assert.deepEqual(parseProcStat(stat), { state: "S", startTime: "22" });
    assert.equal(parseProcStat("garbage"), null);
  });

  it("a workstation's id is the machine id hashed with an app key, stable, never the raw id", async () => {
    const file = join(dir, "machine-id");
    await writeFile(file, "0123456789abcdef0123456789abcdef\n");
    const one = resolveHostIdentity({ machineIdFiles: [file], env: { TICKET_RUNNER_HOST_NAME: "desk" } });
    const two = resolveHostIdentity({ machineIdFiles: [file], env: { TICKET_RUNNER_HOST_NAME: "desk" } });
    assert.deepEqual(one, two);
    assert.deepEqual(one, { kind: "workstation", id: `ws-${hashHostId("0123456789abcdef0123456789abcdef")}`, name: "desk" });
    assert.ok(!one.id.includes("0123456789abcdef"));
  });

  it("falls back to the hostname without a machine id", () => {
    const id = resolveHostIdentity({ machineIdFiles: [join(dir, "none")], env: { TICKET_RUNNER_HOST_NAME: "my laptop" } });
    assert.deepEqual(id, { kind: "workstation", id: "ws-host-my-laptop", name: "my laptop" });
  });

  it("a cloud Host uses its session id; one without a session gets a fresh random id each time", () => {
    assert.equal(resolveHostIdentity({ env: { TICKET_RUNNER_HOST_SESSION: "vm-42", CODESPACE_NAME: "cs" } }).id, "cloud-vm-42");
    assert.equal(resolveHostIdentity({ env: { CODESPACE_NAME: "fluffy-space" } }).kind, "cloud");
    assert.equal(resolveHostIdentity({ env: { GITHUB_RUN_ID: "77", GITHUB_RUN_ATTEMPT: "2" } }).id, "cloud-77-2");
    const a = resolveHostIdentity({ env: { TICKET_RUNNER_HOST_KIND: "cloud" } });
    const b = resolveHostIdentity({ env: { TICKET_RUNNER_HOST_KIND: "cloud" } });
    assert.equal(a.kind, "cloud");
    assert.notEqual(a.id, b.id);
  });
});
