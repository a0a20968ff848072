/** Written into State files, locks and leases, so a newer format can be recognised by an older reader. */
export const PRODUCT_VERSION = "0.1.0";
