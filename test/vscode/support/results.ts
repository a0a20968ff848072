/** The JSON the in-host suite writes to $TICKET_RUNNER_TEST_RESULTS for the launcher. */
export interface InHostTestResult {
  title: string;
  file: string;
  durationMs: number;
}

export interface InHostFailure extends InHostTestResult {
  message: string;
  stack: string;
}

export interface InHostResults {
  passes: InHostTestResult[];
  failures: InHostFailure[];
  pending: InHostTestResult[];
  /** Measurements tests recorded with recordFigure (name -> value and unit). */
  figures: Record<string, { value: number; unit: string }>;
  durationMs: number;
}
