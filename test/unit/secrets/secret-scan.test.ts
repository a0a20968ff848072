import { strict as assert } from "node:assert";
import { secretLintProfiler } from "@secretlint/profiler";
import { scanMemoStats, scrubJsonValue, scrubSecrets, scrubTranscript } from "../../../src/adapters/secret-scan";

const KEY_ID = "AKIA2E0A8F3B244C9986";
const SECRET = "Xq8Vb3kPz7Lm2Rt9Yw4Nc6Hj1Gd5Fs0Ae7Ui3Op2";
const SLACK = ["xoxb", "123456789012", "1234567890123", "abcdefghijklmnopqrstuvwx"].join("-");

describe("secret scan (secretlint's recommended preset, before text leaves the machine)", () => {
  it("masks other services' keys and says which kind was there", async () => {
    const s = await scrubSecrets(`id ${KEY_ID}\naws_secret_access_key = ${SECRET}\nagain ${SECRET}\nslack ${SLACK}`, {});
    for (const secret of [KEY_ID, SECRET, SLACK]) assert.ok(!s.text.includes(secret), s.text);
    assert.match(s.text, /\[redacted: AWSAccessKeyID\]/);
    for (const kind of ["AWSAccessKeyID", "AWSSecretAccessKey"])
      assert.ok(
        s.found.some((f) => f.kind === kind),
        JSON.stringify(s.found),
      );
    assert.equal(s.found.length, 3, JSON.stringify(s.found));
  });

  it("a secretlint-disable comment in the text does not switch the scan off", async () => {
    const s = await scrubSecrets(`// secretlint-disable\n${KEY_ID}\n// secretlint-enable`, {});
    assert.ok(!s.text.includes(KEY_ID), s.text);
  });

  it("still masks the Run's own tokens, by value and by shape", async () => {
    const s = await scrubSecrets("plain 0123456789abcdef0123 and ghp_abcdefghijklmnopqrstuvwxyz0123456789", { TICKET_RUNNER_TOKEN: "0123456789abcdef0123" });
    assert.equal(s.text, "plain *** and ***");
  });

  it("leaves text without secrets byte for byte", async () => {
    const text = 'Fixes nothing. `src/a.js:3` contains "x"\n- [ ] one\n';
    assert.deepEqual(await scrubSecrets(text, {}), { text, found: [] });
  });

  it("a transcript: a key split by JSON escapes is found, the line stays JSON, and a last line says what was masked", async () => {
    const line = JSON.stringify({
      type: "user",
      message: { content: [{ type: "tool_result", content: `aws_access_key_id=${KEY_ID}\naws_secret_access_key=${SECRET}\n` }] },
    });
    const s = await scrubTranscript(`${line}\n{"type":"result"}\n`, {});
    const lines = s.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; redacted?: { kind: string; count: number }[] });
    assert.equal(lines.length, 3);
    assert.ok(!s.text.includes(KEY_ID) && !s.text.includes(SECRET));
    assert.equal(lines[2]!.type, "ticket_runner_redaction");
    assert.deepEqual(lines[2]!.redacted!.map((r) => r.kind).sort(), ["AWSAccessKeyID", "AWSSecretAccessKey"]);
  });

  it("a JSON value keeps its shape; only its strings change", async () => {
    const { value } = await scrubJsonValue({ n: 3, title: `key ${KEY_ID}`, list: [true, null, KEY_ID] }, {});
    assert.deepEqual(value, { n: 3, title: "key [redacted: AWSAccessKeyID]", list: [true, null, "[redacted: AWSAccessKeyID]"] });
  });

  it("leaves no performance mark behind: secretlint's profiler, which nothing reads, is off", async () => {
    const settle = () => new Promise((r) => setImmediate(r));
    const marks = () => performance.getEntriesByType("mark").length;
    const before = marks();
    for (let i = 0; i < 20; i++) {
      await scrubSecrets(`line ${i} ${KEY_ID}\n`, {});
      await settle();
    }
    assert.equal(marks(), before, "scans put performance marks in the process's timeline");
    assert.equal((await secretLintProfiler.getEntries()).length, 0);
    assert.equal((await secretLintProfiler.getMeasures()).length, 0);
  });

  describe("the memo of what a text's scan found", () => {
    it("a text scanned again is masked exactly as the first time, from the memo", async () => {
      const text = `again and again ${KEY_ID} ${Math.random()}`;
      const first = await scrubSecrets(text, {});
      const before = scanMemoStats();
      const second = await scrubSecrets(text, {});
      assert.deepEqual(scanMemoStats(), { size: before.size, hits: before.hits + 1 }, "the second scan of one text was not answered from the memo");
      assert.deepEqual(second, first);
      assert.ok(!second.text.includes(KEY_ID), second.text);
      const clean = `nothing here ${Math.random()}`;
      assert.deepEqual(await scrubSecrets(clean, {}), { text: clean, found: [] });
      assert.deepEqual(await scrubSecrets(clean, {}), { text: clean, found: [] });
    });

    it("the same secret in a text not seen before is still found (the memo is by the whole text)", async () => {
      await scrubSecrets(`seen ${SLACK}`, {});
      const hits = scanMemoStats().hits;
      const s = await scrubSecrets(`unseen ${Math.random()} ${SLACK}`, {});
      assert.equal(scanMemoStats().hits, hits);
      assert.ok(!s.text.includes(SLACK), s.text);
    });

    it("keeps at most 256 texts and none longer than 4096 characters", async () => {
      for (let i = 0; i < 300; i++) await scrubSecrets(`text ${i} ${Math.random()}`, {});
      assert.equal(scanMemoStats().size, 256);
      const long = `${"x".repeat(5000)} ${KEY_ID}`;
      for (let i = 0; i < 2; i++) {
        const before = scanMemoStats();
        const s = await scrubSecrets(long, {});
        assert.ok(!s.text.includes(KEY_ID));
        assert.deepEqual(scanMemoStats(), before);
      }
    });
  });
});
