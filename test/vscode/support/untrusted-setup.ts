// --setup module for the Restricted Mode suite (npm run test:vscode:untrusted): the board's seeded
// sandbox and folder, opened with VS Code's Workspace Trust on. A fresh browser has trusted
// nothing, so the folder opens in Restricted Mode.
import { setup as boardSetup } from "./board-setup";

export const UNTRUSTED_ENV = "TICKET_RUNNER_UNTRUSTED";

export async function setup(): Promise<{ env: Record<string, string>; workspace: string; workspaceTrust: true; teardown: () => Promise<void> }> {
  const s = await boardSetup();
  return { ...s, env: { ...s.env, [UNTRUSTED_ENV]: "1" }, workspaceTrust: true };
}
