import { strict as assert } from "node:assert";
import * as path from "node:path";
import { ESLint } from "eslint";

// Proves every fence of eslint.config.mjs live (docs/architecture.md lists them): a snippet that
// crosses it, linted as if it were a file in that room, is rejected with the fence's words; the
// same import from a room allowed to make it passes.
const ROOT = path.resolve(__dirname, "../../..");

const crossings: { room: string; file: string; from: string; says: RegExp }[] = [
  { room: "core", file: "src/core/run/x.ts", from: "vscode", says: /src\/core must not touch VS Code/ },
  { room: "core", file: "src/core/run/x.ts", from: "node:fs", says: /src\/core must not touch the file system/ },
  { room: "core", file: "src/core/board/x.ts", from: "node:fs/promises", says: /src\/core must not touch the file system/ },
  { room: "core", file: "src/core/x.ts", from: "fs", says: /src\/core must not touch the file system/ },
  { room: "core", file: "src/core/run/x.ts", from: "node:child_process", says: /src\/core must not spawn processes/ },
  { room: "core", file: "src/core/run/x.ts", from: "@octokit/rest", says: /src\/core must not call GitHub directly/ },
  { room: "ports", file: "src/ports/x.ts", from: "node:fs", says: /src\/core must not touch the file system/ },
  { room: "core", file: "src/core/run/x.ts", from: "../../adapters/node-clock", says: /src\/core must not import src\/adapters/ },
  { room: "core", file: "src/core/x.ts", from: "../app/compose-run", says: /src\/core must not import src\/app/ },
  { room: "adapters", file: "src/adapters/git/x.ts", from: "vscode", says: /src\/adapters must not touch VS Code/ },
  { room: "adapters", file: "src/adapters/git/x.ts", from: "../../cli/command", says: /src\/adapters must not import src\/cli/ },
  { room: "adapters", file: "src/adapters/x.ts", from: "../vscode/services", says: /src\/adapters must not import src\/vscode/ },
  { room: "adapters", file: "src/adapters/agent/x.ts", from: "../../demo/folder", says: /src\/adapters must not import src\/demo/ },
  { room: "adapters", file: "src/adapters/x.ts", from: "../app/target", says: /src\/adapters must not import src\/app/ },
  { room: "app", file: "src/app/x.ts", from: "../cli/command", says: /src\/app must not import src\/cli/ },
  { room: "app", file: "src/app/x.ts", from: "../vscode/services", says: /src\/app must not import src\/vscode/ },
  { room: "cli", file: "src/cli/commands/x.ts", from: "../../vscode/board/target", says: /src\/cli must not import src\/vscode/ },
  { room: "cli", file: "src/cli/x.ts", from: "vscode", says: /src\/cli must not touch VS Code/ },
  { room: "vscode", file: "src/vscode/commands/x.ts", from: "../../cli/target-options", says: /src\/vscode must not import src\/cli/ },
  { room: "vscode", file: "src/vscode/x.ts", from: "../sandbox/admin-client", says: /must not use the sandbox/ },
  { room: "cli", file: "src/cli/x.ts", from: "../sandbox/start", says: /must not use the sandbox/ },
  { room: "app", file: "src/app/x.ts", from: "../sandbox/admin-client", says: /must not use the sandbox/ },
  { room: "adapters", file: "src/adapters/x.ts", from: "../sandbox/admin-client", says: /must not use the sandbox/ },
  { room: "core", file: "src/core/x.ts", from: "../sandbox/admin-client", says: /must not use the sandbox/ },
];

const allowed: { file: string; from: string }[] = [
  { file: "src/adapters/x.ts", from: "node:fs" },
  { file: "src/adapters/git/x.ts", from: "node:child_process" },
  { file: "src/app/x.ts", from: "../adapters/node-clock" },
  { file: "src/cli/x.ts", from: "../app/target" },
  { file: "src/vscode/x.ts", from: "vscode" },
  { file: "src/vscode/commands/x.ts", from: "../../app/init-target" },
  { file: "src/core/run/x.ts", from: "../../ports/clock" },
  // The sandbox's own front doors.
  { file: "src/cli/commands/sandbox.ts", from: "../../sandbox/start" },
  { file: "src/demo/x.ts", from: "../sandbox/admin-client" },
];

function snippet(from: string): string {
  return `import * as m from "${from}";\nexport const used = m;\n`;
}

async function importErrors(eslint: ESLint, file: string, from: string): Promise<string[]> {
  const [result] = await eslint.lintText(snippet(from), { filePath: path.join(ROOT, file) });
  assert.ok(result, `eslint returned no result for ${file}`);
  return result.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("lint: every fence between the rooms is live", function () {
  this.timeout(60_000);
  const eslint = new ESLint({ cwd: ROOT });

  for (const c of crossings) {
    it(`${c.room}: ${c.file} importing ${c.from} is refused`, async () => {
      const errors = await importErrors(eslint, c.file, c.from);
      assert.equal(errors.length, 1, `expected one no-restricted-imports error, got ${JSON.stringify(errors)}`);
      assert.match(errors[0]!, c.says);
    });
  }

  for (const a of allowed) {
    it(`${a.file} importing ${a.from} is allowed`, async () => {
      assert.deepEqual(await importErrors(eslint, a.file, a.from), []);
    });
  }
});
