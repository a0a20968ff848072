import type { BoardHandle } from "../board-seam";
import type { Log } from "../../ports/log";

/** At most one board refresh per this many ms while a Run moves; the last change always gets one. */
const MIN_INTERVAL_MS = 1_000;

/**
 * Keeps the board in step with a Run here through its public refresh(), without asking GitHub for
 * every Stage event of every lane: refreshes are coalesced, and one always follows the last poke.
 */
export class BoardRefresh {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastAt = 0;
  private running = false;
  private again = false;

  constructor(
    private readonly board: () => BoardHandle,
    private readonly log: Log,
    private readonly minIntervalMs = MIN_INTERVAL_MS,
  ) {}

  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    const wait = Math.max(0, this.lastAt + this.minIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, wait);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async refresh(): Promise<void> {
    this.running = true;
    this.lastAt = Date.now();
    try {
      await this.board().refresh();
    } catch (e) {
      this.log.warn(`board refresh after a Run event failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    }
  }
}
