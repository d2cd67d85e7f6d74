/**
 * Accessibility of the main screens (issue 13): axe-core finds no serious
 * or critical violation (labels, contrast AA, roles) on the welcome, a chat
 * with a mounted UI, Settings, Session settings and the phone-width session
 * drawer, in the light and the dark theme; a mounted UI works from the
 * keyboard; dialogs keep the focus and give it back; the status line is one
 * live region that announces each change.
 */
import { describe, expect } from "vitest";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { configureEndpoint, openReadyApp, waitFor, type TestServer } from "./harness";
import { startMockLlm } from "./mockLlm";
import { animationsDone, appTest, FENCE } from "./fixture";

const it = appTest({ context: { serviceWorkers: "block" } });
let browser: Browser;
let app: TestServer;
let page: Page;

it.beforeEach(({ browser: launched, app: served, page: opened }) => {
  browser = launched;
  app = served;
  page = opened;
});

/** Serious and critical violations, each with the elements it names. */
async function seriousViolations(target: Page): Promise<string[]> {
  // The hidden sandbox frame is an opaque origin with no content for people.
  const results = await new AxeBuilder({ page: target }).exclude("iframe").analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => `${node.target.join(" ")} — ${node.failureSummary ?? ""}`).join(" | ")}`,
    );
}

const THEMES = ["light", "dark"] as const;

async function useTheme(target: Page, theme: (typeof THEMES)[number]) {
  await target.emulateMedia({ colorScheme: theme });
  // KaTeX, highlighting and transitions settle before axe reads colours.
  await animationsDone(target);
}

async function chatWithMountedUi(target: Page) {
  await target.getByRole("button", { name: "Give me a button to click" }).click();
  await waitFor(
    async () => /^(Done|Ready|Waiting)/.test((await target.getByRole("status").textContent()) ?? ""),
    60_000,
  );
  // The reply went on below the panel (on a phone, far enough that the followed timeline left it out of view,
  // where it is put away): the person scrolls back to it.
  await target.getByLabel("Mounted UI", { exact: true }).first().scrollIntoViewIfNeeded({ timeout: 60_000 });
  await target.getByRole("button", { name: "Roll the die" }).waitFor({ timeout: 60_000 });
}

describe("axe: no serious or critical violations", () => {
  for (const theme of THEMES) {
    it(`the welcome screen (${theme})`, async () => {
      await useTheme(page, theme);
      await page.getByRole("button", { name: "Start the demo" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    });

    it(`a chat with a mounted UI and highlighted code (${theme})`, async () => {
      await useTheme(page, theme);
      await chatWithMountedUi(page);
      await page.locator('[data-highlighted="all"]').first().waitFor({ timeout: 30_000 });
      expect(await seriousViolations(page)).toEqual([]);
    });

    it(`the Settings dialog (${theme})`, async () => {
      await useTheme(page, theme);
      await page.getByRole("button", { name: "Settings", exact: true }).click();
      await page.getByRole("dialog", { name: "Settings" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    });

    it(`the Session settings dialog (${theme})`, async () => {
      await useTheme(page, theme);
      await chatWithMountedUi(page);
      await page.getByRole("button", { name: "Session settings" }).click();
      await page.getByRole("dialog", { name: "Session settings" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    });

    it(`a chat on a 375 px phone: icon header, composer, Jump to latest (${theme})`, async () => {
      await useTheme(page, theme);
      await page.setViewportSize({ width: 375, height: 720 });
      await chatWithMountedUi(page);
      // Scrolled up to reread: the Jump to latest button is on screen too.
      // With the wheel, as a person does: a scroll nobody made is undone and keeps the timeline following.
      const main = (await page.locator(".lm-main").boundingBox())!;
      await page.mouse.move(main.x + main.width / 2, main.y + main.height / 2);
      await page.mouse.wheel(0, -2000);
      await page.getByRole("button", { name: "Jump to latest" }).waitFor({ timeout: 10_000 });
      expect(await seriousViolations(page)).toEqual([]);
    });

    it(`the session drawer at 375 px (${theme})`, async () => {
      await useTheme(page, theme);
      await page.setViewportSize({ width: 375, height: 720 });
      await page.getByRole("button", { name: "Sessions", exact: true }).click();
      await page.getByRole("searchbox", { name: "Search sessions" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    });
  }
});

describe("a model's UI written without dark: variants", () => {
  const UI =
    'mount({ title: "Plan", ui: () => <Card><CardHeader><CardTitle>Plan</CardTitle></CardHeader><CardContent>' +
    '<p className="text-gray-900 font-medium">Three steps</p>' +
    '<p className="text-gray-500">Secondary note in gray</p>' +
    '<p className="text-slate-600 text-sm">Fine print in slate</p>' +
    '<div className="bg-white border rounded p-2"><span className="text-gray-700">Text on a white box</span></div>' +
    '<div className="bg-blue-50 p-2"><span className="text-gray-700">Text on a tinted box</span></div>' +
    "</CardContent></Card> })";

  for (const theme of THEMES) {
    it(`keeps its gray text readable (AA) in the ${theme} theme`, async () => {
      const mock = await startMockLlm();
      try {
        await configureEndpoint(page, mock.url);
        mock.enqueue({ chunks: [`A plan.\n\n${FENCE}tsx agent.run\n${UI}\n${FENCE}\n`] });
        await useTheme(page, theme);
        await page.getByRole("textbox", { name: "Message" }).fill("A plan please");
        await page.getByRole("textbox", { name: "Message" }).press("Enter");
        const note = page.locator(".lm-mount").getByText("Secondary note in gray", { exact: true });
        await note.waitFor({ timeout: 60_000 });
        await waitFor(async () => /^Done/.test((await page.getByRole("status").textContent()) ?? ""), 60_000);
        // The utility CSS is generated after the panel draws: wait until the gray class has its colour.
        await waitFor(
          () =>
            note.evaluate(
              (element) => getComputedStyle(element).color !== getComputedStyle(element.parentElement!).color,
            ),
          30_000,
        );
        await animationsDone(page);
        expect(await seriousViolations(page)).toEqual([]);
        const colors = await page.evaluate(() =>
          ["Secondary note in gray", "Text on a white box", "Text on a tinted box"].map((text) => {
            const element = [...document.querySelectorAll(".lm-mount p, .lm-mount span")].find(
              (each) => each.textContent === text,
            )!;
            return getComputedStyle(element).color;
          }),
        );
        // Tailwind's gray-500 stays gray-500 in the light theme; the tinted box keeps the model's gray in both.
        if (theme === "light") expect(colors[0]).toBe("rgb(107, 114, 128)");
        else expect(colors[0]).not.toBe("rgb(107, 114, 128)");
        expect(colors[2]).toBe("rgb(55, 65, 81)");
      } finally {
        await mock.close();
      }
    });
  }
});

describe("keyboard and screen readers", () => {
  it("a mounted UI is reachable with Tab and works with Enter, with a visible focus ring", async () => {
    await chatWithMountedUi(page);
    const roll = page.getByRole("button", { name: "Roll the die" });
    await page.getByRole("textbox", { name: "Message" }).focus();
    // Backwards from the message box, the mounted button is reached by Tab alone.
    let reached = false;
    for (let step = 0; step < 40 && !reached; step++) {
      await page.keyboard.press("Shift+Tab");
      reached = await roll.evaluate((element) => element === document.activeElement);
    }
    expect(reached).toBe(true);
    const ring = await roll.evaluate((element) => {
      const style = getComputedStyle(element);
      return { outline: style.outlineStyle, width: parseFloat(style.outlineWidth), shadow: style.boxShadow };
    });
    expect((ring.outline !== "none" && ring.width > 0) || ring.shadow !== "none").toBe(true);
    const replies = await page.getByRole("article", { name: "Reply" }).count();
    await page.keyboard.press("Enter");
    // The click reached the realm: a UI event turn starts and gets a reply.
    await waitFor(async () => (await page.getByRole("article", { name: "Reply" }).count()) > replies, 30_000);
  });

  it("every header button shows a focus ring when reached by keyboard", async () => {
    const names = ["Sessions", "Session settings", "Export", "Share", "Settings"];
    for (const name of names) {
      const button = page.getByRole("button", { name, exact: true });
      if (!(await button.isVisible()) || (await button.isDisabled())) continue;
      await button.focus();
      const outline = await button.evaluate((element) => getComputedStyle(element).outlineStyle);
      expect(outline, name).not.toBe("none");
    }
  });

  for (const [opener, dialogName] of [
    ["Settings", "Settings"],
    ["Session settings", "Session settings"],
  ] as const) {
    it(`the ${dialogName} dialog keeps the focus inside and gives it back to ${opener} when closed with Escape`, async () => {
      if (opener === "Session settings") await chatWithMountedUi(page);
      const button = page.getByRole("button", { name: opener, exact: true });
      await button.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: dialogName });
      await dialog.waitFor();
      for (let index = 0; index < 25; index++) {
        await page.keyboard.press("Tab");
        const inside = await page.evaluate(
          () => !!document.activeElement?.closest("dialog") || document.activeElement === document.body,
        );
        expect(inside).toBe(true);
      }
      await page.keyboard.press("Escape");
      await waitFor(async () => (await dialog.count()) === 0, 5_000);
      expect(
        await page.evaluate(
          () => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent,
        ),
      ).toBe(opener);
    });
  }

  it("the status line is one polite live region that announces each state of a reply", async () => {
    const status = page.getByRole("status");
    expect(await status.getAttribute("aria-live")).toBe("polite");
    // Record every text the same element shows (a replaced element would not be announced).
    await status.evaluate((element) => {
      const seen: string[] = [];
      (window as unknown as { __statusSeen: string[] }).__statusSeen = seen;
      (window as unknown as { __statusNode: Element }).__statusNode = element;
      new MutationObserver(() => seen.push(element.textContent ?? "")).observe(element, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.getByRole("button", { name: "Compute some primes" }).click();
    await waitFor(async () => /^Done/.test((await status.textContent()) ?? ""), 60_000);
    const seen = await page.evaluate(() => (window as unknown as { __statusSeen: string[] }).__statusSeen);
    expect(seen.some((text) => text.startsWith("Streaming") || text.startsWith("Running"))).toBe(true);
    expect(seen.at(-1)).toMatch(/^Done/);
    expect(
      await status.evaluate((element) => element === (window as unknown as { __statusNode: Element }).__statusNode),
    ).toBe(true);
  });
});
