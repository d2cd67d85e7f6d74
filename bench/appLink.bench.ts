/**
 * An app link opened from the cache (issue 29 §1):
 * - `app.linkInteractiveMs` (budget ≤ 1000): the built app installed in
 *   a context (its service worker controls the page), then, offline, a new
 *   tab opens an app link of a counter: navigation start → a click on the
 *   app's button has taken effect (the button showed `count 0`, enabled, was
 *   clicked by an init script watching the page with a MutationObserver, and
 *   `count 1` is drawn). Median of APP_LINK_LOADS tabs.
 * - `app.linkButtonMs`: the same loads, navigation start → the button was
 *   there and enabled (the click was made).
 */
import { DIST_DIR, launchBrowser, openReadyApp, serveStatic, waitFor } from "../e2e/harness";
import { APP_FORMAT, APP_VERSION, encodeAppLink, type AppPayload } from "../src/store/appLink";

const APP_LINK_LOADS = 7;

const COUNTER = `mount({ title: "Counter", ui: () => {
  const [count, setCount] = useState(0)
  return <Button onClick={() => setCount((n) => n + 1)}>count {count}</Button>
} })`;

const PROBE = `{
  if (window === window.top) {
    const state = (globalThis.__appLink = {});
    const check = () => {
      const buttons = [...document.querySelectorAll('[aria-label="Mounted UI"] button')];
      if (state.clicked === undefined) {
        const button = buttons.find((each) => each.textContent.trim() === "count 0" && !each.disabled);
        if (button) {
          state.clicked = performance.now();
          button.click();
        }
      } else if (buttons.some((each) => each.textContent.trim() === "count 1")) {
        state.at = performance.now();
        observer.disconnect();
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  }
}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
}

export async function run(): Promise<Record<string, number>> {
  const payload: AppPayload = {
    format: APP_FORMAT,
    version: APP_VERSION,
    title: "Counter",
    replies: [
      {
        blocks: [{ kind: "code", index: 1, lang: "tsx", line: 3, source: COUNTER, unterminated: false }],
        mounts: ["Counter"],
      },
    ],
  };
  const encoded = await encodeAppLink(payload);
  if (!encoded.ok) throw new Error(encoded.error.message);
  const app = await serveStatic(DIST_DIR);
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openReadyApp(page, app.url);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    if (!(await page.evaluate(() => !!navigator.serviceWorker.controller)))
      throw new Error("the service worker does not control the page");
    await context.setOffline(true);
    await context.addInitScript(PROBE);
    const link = app.url.replace(/#.*$/, "") + encoded.fragment;
    const loads: { at: number; clicked: number }[] = [];
    for (let index = 0; index < APP_LINK_LOADS; index += 1) {
      const tab = await context.newPage();
      await tab.goto(link);
      const times = await waitFor(
        () =>
          tab.evaluate(() => {
            const state = (globalThis as unknown as { __appLink: { at?: number; clicked?: number } }).__appLink;
            return state.at === undefined ? undefined : { at: state.at, clicked: state.clicked! };
          }),
        30_000,
        20,
      );
      loads.push(times!);
      await tab.close();
    }
    const results = {
      "app.linkInteractiveMs": median(loads.map((load) => load.at)),
      "app.linkButtonMs": median(loads.map((load) => load.clicked)),
    };
    console.log(
      `cached app link, offline → its button's click took effect: median ${results["app.linkInteractiveMs"]} ms (budget 1000); samples ${loads.map((load) => Math.round(load.at)).join(", ")}`,
    );
    console.log(
      `cached app link → its button was there and enabled: median ${results["app.linkButtonMs"]} ms; samples ${loads.map((load) => Math.round(load.clicked)).join(", ")}`,
    );
    return results;
  } finally {
    await browser.close();
    await app.close();
  }
}
