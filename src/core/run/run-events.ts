/**
 * The one way a front door observes a Run (CLI live display, VS Code status bar, board and output
 * channels). The Run emits; subscribers only read. A subscriber that throws is logged and dropped
 * from that one event, never allowed to break the Run.
 */
import type { AgentEvent } from "../../ports/agent-runner";

export type EndingKind = "merged" | "handed-off" | "released" | "skipped" | "yielded" | "failed";

export type RunEvent =
  | { kind: "run-started"; runId: string; lanes: number; narrowedTo: number[] | null; at: string }
  | { kind: "lane-started"; lane: number; ticket: number; title: string; resumed: boolean; at: string }
  | { kind: "stage-started"; lane: number; ticket: number; stage: string; at: string }
  | { kind: "stage-ended"; lane: number; ticket: number; stage: string; outcome: string; turns: number | null; durationMs: number; at: string }
  | { kind: "transcript"; lane: number; ticket: number; stage: string; event: AgentEvent }
  | { kind: "ticket-ended"; lane: number | null; ticket: number; ending: EndingKind; line: string; at: string }
  | { kind: "run-stopping"; holding: number[]; at: string }
  | { kind: "run-ended"; exitCode: number; lines: string[]; at: string };

export type RunEventListener = (event: RunEvent) => void;

export class RunEvents {
  private readonly listeners = new Set<RunEventListener>();
  private readonly history: RunEvent[] = [];

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: RunEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every event so far except transcript lines (a late subscriber can catch up on the shape of the Run). */
  past(): readonly RunEvent[] {
    return this.history;
  }

  emit(event: RunEvent): void {
    if (event.kind !== "transcript") this.history.push(event);
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
