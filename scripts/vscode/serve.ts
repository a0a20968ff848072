// Opens Ticket Runner in code-server (VS Code in the browser) from this working tree and prints
// the URL; Ctrl-C stops it. For demos and for trying the extension where desktop VS Code is absent.
//   npm run build && npx tsx scripts/vscode/serve.ts [--folder DIR] [--port N] [--env KEY=VALUE]...
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startCodeServer } from "./code-server";
import { REPO_ROOT } from "./build-suite";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const env: Record<string, string> = {};
  let folder: string | undefined;
  let port: number | undefined;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ""];
    if (flag === "--folder") folder = resolve(value);
    else if (flag === "--port") port = Number(value);
    else if (flag === "--env" && value.includes("=")) env[value.slice(0, value.indexOf("="))] = value.slice(value.indexOf("=") + 1);
    else throw new Error(`unknown argument ${flag}`);
  }
  folder ??= join(mkdtempSync(join(tmpdir(), "tr-serve-")), "workspace");
  mkdirSync(folder, { recursive: true });
  const server = await startCodeServer({ ...(port ? { port } : {}), env });
  const payload = [["extensionDevelopmentPath", `vscode-remote://127.0.0.1:${server.port}${REPO_ROOT}`]];
  console.log(`Ticket Runner in VS Code (code-server pid ${server.pid}):`);
  console.log(`${server.url}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  console.log(`Password: ${server.password}`);
  console.log("Ctrl-C stops it."); // code-server.ts ends the server when this process exits
  setInterval(() => undefined, 1 << 30); // stay alive until interrupted
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
