import { loadConfig } from "../../app/config-load";
import { isRefusal } from "../../core/errors";
import { configSchema, type Config } from "../../core/schemas/config";

/**
 * The Target's team settings, `ticket-runner.json` at the clone's top level, through the same
 * loader as the CLI (src/app/config-load.ts). A Run needs the file (no file: `ticket-runner init`
 * first, a Refusal that says so); a person's Claim or Release works with the default labels.
 */
export function loadTargetConfig(folder: string, need: "required" | "optional" = "optional"): Config {
  try {
    return loadConfig(folder);
  } catch (e) {
    if (need === "optional" && isRefusal(e) && e.reason === "not-a-target") return configSchema.parse({});
    throw e;
  }
}
