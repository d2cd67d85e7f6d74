/**
 * What a screenshot must never show: the failure states a person would read
 * as a broken app. `npm run screenshots` (scripts/screenshots.mjs) refuses to
 * write a picture while any is on screen; e2e/screenState.test.ts shows that
 * each is seen.
 */
import type { Page } from "playwright-core";

/** The error states on the page, in words (empty: none). Only what is rendered and visible counts. */
export async function errorStates(page: Page): Promise<string[]> {
  // Run by tsx (the screenshot script), esbuild names the helpers below with a `__name` call the page lacks.
  await page.evaluate("globalThis.__name ??= (target) => target");
  return page.evaluate(() => {
    const found: string[] = [];
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return box.width > 0 && box.height > 0 && style.visibility !== "hidden";
    };
    const inViewport = (element: Element) => {
      const box = element.getBoundingClientRect();
      return visible(element) && box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth;
    };
    const text = document.body.innerText;
    for (const words of ["Restored view — not interactive", "The sandbox was reset", "Sandbox failed"])
      if (text.includes(words)) found.push(`"${words}"`);
    for (const alert of document.querySelectorAll('[role="alert"]'))
      if (visible(alert) && alert.textContent?.trim())
        found.push(`an alert: "${alert.textContent.trim().slice(0, 120)}"`);
    for (const notice of document.querySelectorAll(".lm-notice--error"))
      if (visible(notice)) found.push(`an error notice: "${notice.textContent?.trim().slice(0, 120)}"`);
    const status = document.querySelector('[role="status"].lm-status')?.textContent ?? "";
    if (/^(Error|Stopped)/.test(status)) found.push(`the status line: "${status}"`);
    // The first screen before its welcome (or its empty-session words) arrived: a blank page.
    const timeline = document.querySelector(".lm-timeline");
    if (timeline && timeline.getBoundingClientRect().height < 1) found.push("a blank timeline");
    // A panel in view that has not drawn itself, or a chart with nothing drawn, pictures as an empty box.
    for (const panel of document.querySelectorAll(".lm-mount[data-deferred]"))
      if (inViewport(panel)) found.push("an undrawn panel in view");
    for (const chart of document.querySelectorAll(".recharts-responsive-container, .recharts-wrapper")) {
      if (!inViewport(chart)) continue;
      const marks = [...chart.querySelectorAll(".recharts-surface path")].filter((path) => path.getAttribute("d"));
      if (marks.length === 0) {
        found.push("an empty chart in view");
        break;
      }
    }
    return found;
  });
}
