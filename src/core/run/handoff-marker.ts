/** The first line of the Run's hand-off comment: how its readers find it (a module of its own so the board's notifications read it without the comment's schemas). */
export const HANDOFF_MARKER = "<!-- ticket-runner:handoff -->";
