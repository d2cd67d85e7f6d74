/**
 * Draws the app's PNG icons (public/icons/*.png) from its SVGs with the
 * test browser, so the manifest offers the sizes installers ask for.
 * Run after changing an SVG: `npx tsx scripts/icons.mjs` (it imports the e2e harness, which is TypeScript).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { chromiumPath } from "../e2e/harness.ts";

const ICONS = [
  ["icon.svg", "icon-192.png", 192],
  ["icon.svg", "icon-512.png", 512],
  ["icon-maskable.svg", "icon-maskable-512.png", 512],
  ["icon.svg", "apple-touch-icon.png", 180],
  // index.html's favicon, inlined there as a data: URL (a PNG: an SVG favicon
  // is drawn by the page's own main thread as an SVG document, ~20 ms during start-up).
  ["icon.svg", "favicon-32.png", 32],
];

const browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] });
try {
  for (const [source, target, size] of ICONS) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const svg = readFileSync(new URL(`../public/icons/${source}`, import.meta.url), "utf8");
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`,
    );
    writeFileSync(
      new URL(`../public/icons/${target}`, import.meta.url),
      await page.screenshot({ omitBackground: true }),
    );
    await page.close();
  }
} finally {
  await browser.close();
}
