import type { CommandServices } from "../run-command";
import type { BoardFilter } from "../board-seam";
import { refreshTargetState } from "../target-state";

export async function refreshBoard(services: CommandServices): Promise<void> {
  await refreshTargetState(services);
  await services.board.refresh();
}

export const FILTER_STATE_KEY = "ticketRunner.boardFilter";

/** Mine / all. Remembered per workspace; the context key flips the title-bar button. */
export function setBoardFilter(filter: BoardFilter) {
  return async (services: CommandServices): Promise<void> => {
    await services.context.workspaceState.update(FILTER_STATE_KEY, filter);
    await services.contextKeys.set("ticketRunner.filterMine", filter === "mine");
    services.board.setFilter(filter);
  };
}
