import type { CommandServices } from "../run-command";
import { refreshTargetState } from "../target-state";

/** Prompts for GitHub sign-in (only here, on a person's action), then refreshes the board. */
export async function signIn(services: CommandServices): Promise<void> {
  const session = await services.connection.session("prompt");
  await refreshTargetState(services);
  await services.board.refresh();
  if (!session) return;
  const who = session.source === "vscode" ? `as ${session.account ?? "your GitHub account"}` : `with the token from ${session.source}`;
  services.notifier.info(`Ticket Runner: signed in ${who} (${session.apiUrl}).`);
}
