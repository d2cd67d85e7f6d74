/**
 * Screenshots of the main screens for docs/ and the README: the welcome, a
 * chat with a generated UI, and the phone layout, each in the light and the
 * dark theme. Drives the built app (dist/) with the offline demo model, so
 * the pictures need no key and no network. A picture that would show a
 * failure (a restored view, a reset sandbox, an alert, an empty chart, a blank first screen:
 * e2e/screenState.ts) is not written and the script fails.
 *
 *     npm run screenshots    # builds, then writes docs/*.png
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { assertBuilt, launchBrowser, openReadyApp, serveStatic, waitFor } from "../e2e/harness.ts";
import { errorStates } from "../e2e/screenState.ts";

const DOCS = fileURLToPath(new URL("../docs/", import.meta.url));
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 760 };

async function settled(page) {
  // The status line (a chart's tooltip is a status too).
  await waitFor(async () => /^(Done|Ready)/.test((await page.locator(".lm-status").textContent()) ?? ""), 90_000, 100);
  // Highlighting, KaTeX and charts finish drawing.
  await page.waitForTimeout(800);
}

async function shoot(browser, url, { name, viewport, theme, scale = 1, prepare }) {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: scale,
    colorScheme: theme,
    serviceWorkers: "block",
  });
  try {
    const page = await context.newPage();
    await openReadyApp(page, url);
    await prepare?.(page);
    // No caret blinking or hover state in the picture.
    await page.mouse.move(0, 0);
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    const failures = await errorStates(page);
    if (failures.length > 0) throw new Error(`docs/${name}-${theme}.png would show ${failures.join(", ")}`);
    await page.screenshot({ path: `${DOCS}${name}-${theme}.png` });
    console.log(`docs/${name}-${theme}.png`);
  } finally {
    await context.close();
  }
}

// The welcome is its own chunk, and its suggestions another: shown once the last of them is.
const welcome = (page) => page.getByRole("button", { name: "Stream some Markdown" }).waitFor({ timeout: 30_000 });

const chat = async (page) => {
  await page.getByRole("button", { name: "Build me a dashboard" }).click();
  await settled(page);
  // Frame the generated dashboard: its panel at the top of the conversation.
  await page
    .locator(".lm-mount")
    .first()
    .evaluate((panel) => {
      const scroller = panel.closest(".lm-main");
      // As a reader would (a wheel first): the timeline undoes scrolls nobody made (src/ui/useFollowLatest.ts).
      scroller.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, bubbles: true }));
      scroller.scrollTop += panel.getBoundingClientRect().top - scroller.getBoundingClientRect().top - 40;
    });
  await page.waitForTimeout(500);
};

assertBuilt();
mkdirSync(DOCS, { recursive: true });
const [browser, app] = await Promise.all([launchBrowser(), serveStatic()]);
try {
  for (const theme of ["light", "dark"]) {
    await shoot(browser, app.url, { name: "welcome", viewport: DESKTOP, theme, prepare: welcome });
    await shoot(browser, app.url, { name: "chat", viewport: DESKTOP, theme, prepare: chat });
    await shoot(browser, app.url, { name: "phone", viewport: PHONE, theme, scale: 2, prepare: chat });
  }
} finally {
  await browser.close();
  await app.close();
}
