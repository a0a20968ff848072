/**
 * The three one-off chaos scenarios, each on a fresh 6-ticket demo Target, each returning its
 * violations (empty = pass) and the figure it proves. Shared by the quick suite and chaos-main.
 *   faults     5% 5xx, secondary rate limits and read lag: the same outcomes, no marker comment twice,
 *              waits that follow retry-after
 *   dead-host  lockScope "host", two Hosts on one Target, one is killed: the other takes its tickets
 *              once their leases expire and finishes them; nothing runs twice
 *   canary     a token no pattern knows, used for whole Runs (one killed): not one byte of it in
 *              anything the Runs wrote
 */
import type { Figure } from "../support/figures";
import { canaryScenario } from "./canary";
import { deadHostScenario } from "./dead-host";
import { faultsScenario } from "./faults";
import type { ChaosWorld } from "./world";

export interface ScenarioResult {
  summary: string;
  violations: string[];
  figureId: string;
  figure: Figure;
}

export type Scenario = (world: ChaosWorld, o: { log?: (line: string) => void }) => Promise<ScenarioResult>;

export const extraScenarios: Record<string, Scenario> = {
  faults: faultsScenario,
  "dead-host": deadHostScenario,
  canary: canaryScenario,
};
