import type { CliCommand } from "../command";
import { PRODUCT_VERSION } from "../../core/version";

export const versionCommand: CliCommand = {
  usage: "ticket-runner version",
  async run(_argv, io) {
    io.out(PRODUCT_VERSION);
    return 0;
  },
};
