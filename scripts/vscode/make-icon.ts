// Renders media/icon.png (the Marketplace/extension-list icon, 128x128) from media/ticket-runner.svg.
// Run once after changing the SVG: npx tsx scripts/vscode/make-icon.ts
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "./chromium";

const root = join(__dirname, "..", "..");

async function main(): Promise<void> {
  const svg = readFileSync(join(root, "media", "ticket-runner.svg"), "utf8").replace('width="24" height="24"', 'width="96" height="96"');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
    await page.setContent(
      `<html><body style="margin:0;width:128px;height:128px;display:flex;align-items:center;justify-content:center;background:#1f6feb;border-radius:24px;color:#fff">${svg}</body></html>`,
    );
    await page.locator("body").screenshot({ path: join(root, "media", "icon.png"), omitBackground: true });
  } finally {
    await browser.close();
  }
  console.log("wrote media/icon.png");
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
