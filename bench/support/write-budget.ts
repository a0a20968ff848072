/** GitHub writes a clean ticket may cost (docs/endings.md, "GitHub writes per ticket"): bench:run and bench:hosts judge it. */
export const WRITE_BUDGET = 10;
