/**
 * Layout a person notices (issue 13): the 375 px phone header in one row
 * with every action on screen, the composer's placeholder whole, and the
 * timeline following new content like a chat app ("Jump to latest").
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { configureEndpoint, waitFor } from "./harness";
import { createGate, type MockLlm } from "./mockLlm";
import { appTest, FENCE, nextPaint, send, waitDone } from "./fixture";

const it = appTest();
const HEADER_ACTIONS = ["Sessions", "Session settings", "Export", "Share", "Invite agent", "Settings"];

/** The header's boxes: its height, and each visible child's top and height. */
function headerGeometry(page: Page) {
  return page.locator(".lm-header").evaluate((header) => {
    const children = [...header.children]
      .map((child) => child.getBoundingClientRect())
      .filter((box) => box.width > 1 && box.height > 1)
      .map((box) => ({ top: box.top, bottom: box.bottom, height: box.height }));
    return {
      height: header.getBoundingClientRect().height,
      scrollWidth: header.scrollWidth,
      clientWidth: header.clientWidth,
      children,
    };
  });
}

/** On screen and not covered: what a finger can press. */
function pressable(page: Page, name: string) {
  return page.getByRole("button", { name, exact: true }).evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return (
      box.width >= 24 &&
      box.left >= 0 &&
      box.right <= innerWidth &&
      box.top >= 0 &&
      box.bottom <= innerHeight &&
      (hit === element || element.contains(hit))
    );
  });
}

/** Pressable now (a button hidden, e.g. behind More, is not in the accessibility tree: not pressable). */
async function pressableNow(page: Page, name: string) {
  return (await page.getByRole("button", { name, exact: true }).count()) === 1 && pressable(page, name);
}

/** The message box's placeholder laid out at the box's width and font: does all of it fit inside? */
function placeholderFits(page: Page) {
  return page.getByRole("textbox", { name: "Message" }).evaluate((element) => {
    const box = element as HTMLTextAreaElement;
    const style = getComputedStyle(box);
    const mirror = document.createElement("div");
    const horizontal = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const vertical = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    Object.assign(mirror.style, {
      position: "absolute",
      visibility: "hidden",
      whiteSpace: "pre-wrap",
      overflowWrap: "break-word",
      font: style.font,
      letterSpacing: style.letterSpacing,
      lineHeight: style.lineHeight,
      width: `${box.clientWidth - horizontal}px`,
    });
    mirror.textContent = box.placeholder;
    document.body.append(mirror);
    const needed = mirror.scrollHeight;
    mirror.remove();
    return {
      placeholder: box.placeholder,
      fits: needed <= box.clientHeight - vertical + 1 && box.scrollWidth <= box.clientWidth,
      needed,
      available: box.clientHeight - vertical,
    };
  });
}

describe("a 375 px phone", () => {
  it.override({ contextOptions: { viewport: { width: 375, height: 740 } } });
  let page: Page;
  it.beforeEach(({ page: opened }) => {
    page = opened;
  });

  async function expectOneRowHeader() {
    const header = await headerGeometry(page);
    const tallest = Math.max(...header.children.map((child) => child.height));
    // One row: every visible part shares the row's band, and the header is no taller than a row plus its padding.
    for (const child of header.children) expect(child.bottom - header.children[0].top).toBeLessThanOrEqual(tallest + 2);
    expect(header.height).toBeLessThanOrEqual(tallest + 24);
    expect(header.scrollWidth).toBeLessThanOrEqual(header.clientWidth);
    const page_ = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(page_.scrollWidth).toBeLessThanOrEqual(page_.clientWidth);
    for (const name of HEADER_ACTIONS) expect(await pressable(page, name), name).toBe(true);
  }

  it("has a one-row header with every action on screen by its name, and the composer's placeholder whole", async () => {
    await expectOneRowHeader();
    const composer = await placeholderFits(page);
    expect(composer.placeholder).toMatch(/^Ask for something that runs/);
    expect(composer, `placeholder needs ${composer.needed}px, the box has ${composer.available}px`).toMatchObject({
      fits: true,
    });
    expect(await pressable(page, "Attach files")).toBe(true);
    expect(await pressable(page, "Send")).toBe(true);

    // With a session title and a reply in the timeline: still one row, still nothing sideways.
    await page.getByRole("button", { name: "Give me a button to click" }).click();
    // The reply is over (its panel may be drawn only once scrolled near: the header is what is looked at here).
    await page.getByRole("status").filter({ hasText: /^Done/ }).first().waitFor({ timeout: 60_000 });
    await waitFor(async () => ((await page.locator(".lm-session-title").textContent()) ?? "") !== "", 10_000);
    await expectOneRowHeader();
    expect((await placeholderFits(page)).fits).toBe(true);

    // The header's buttons still do their work: Settings opens its dialog.
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await page.getByRole("dialog", { name: "Settings" }).waitFor();
  }, 120_000);

  it("keeps the desktop header and composer as words (icons are the phone's only)", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const name of ["Export", "Share", "Invite agent", "Settings"]) {
      const words = await page
        .locator(".lm-header")
        .getByRole("button", { name, exact: true })
        .evaluate((button) => {
          const label = button.querySelector(".lm-header__label")!.getBoundingClientRect();
          const icon = button.querySelector(".lm-header__icon")?.getBoundingClientRect();
          return { labelWidth: label.width, iconWidth: icon?.width ?? 0 };
        });
      expect(words.labelWidth, name).toBeGreaterThan(20);
      expect(words.iconWidth, name).toBe(0);
    }
    expect(await page.getByRole("textbox", { name: "Message" }).getAttribute("placeholder")).toBe(
      "Ask for something that runs… (Enter sends, Shift+Enter for a new line)",
    );
    const header = await headerGeometry(page);
    expect(header.height).toBeLessThanOrEqual(Math.max(...header.children.map((child) => child.height)) + 24);
  });
});

describe("every width from 320 to 2,560 px", () => {
  const WIDTHS = [320, 375, 414, 600, 721, 768, 900, 1024, 1100, 1280, 1440, 1920, 2560];
  /** Above 720 px the session list is a column beside the chat, not a drawer behind Sessions. */
  const actionsAt = (width: number) => (width <= 720 ? HEADER_ACTIONS : HEADER_ACTIONS.slice(1));

  it("never scrolls sideways, and every header action is on screen or one press of More away", async ({ page }) => {
    const more = page.locator(".lm-header").getByRole("button", { name: "More", exact: true });
    const seenBehindMore = new Set<number>();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await nextPaint(page);
      // Crossing 720 px slides the session list out as a drawer (a 0.15 s transition): what is pressable is
      // judged once it has finished.
      await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished)));
      const sideways = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth,
      }));
      expect(sideways.scrollWidth, `${width} px`).toBeLessThanOrEqual(sideways.innerWidth);
      // The model's name is never squeezed to nothing.
      expect(
        await page.locator(".lm-model").evaluate((label) => label.getBoundingClientRect().width),
        `${width} px`,
      ).toBeGreaterThan(30);
      for (const name of actionsAt(width)) {
        if (await pressableNow(page, name)) continue;
        seenBehindMore.add(width);
        expect(await pressable(page, "More"), `${name} at ${width} px: neither on screen nor behind More`).toBe(true);
        await more.click();
        expect(await more.getAttribute("aria-expanded")).toBe("true");
        expect(await pressable(page, name), `${name} at ${width} px behind More`).toBe(true);
        // The open list does not make the page wider either.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
        await page.keyboard.press("Escape");
        expect(await more.getAttribute("aria-expanded")).toBe("false");
      }
      // Where everything fits, More is not shown at all.
      if (!seenBehindMore.has(width)) expect(await more.isVisible(), `${width} px`).toBe(false);
    }
    // Tablet and half-screen widths are where More is needed; a wide window shows every action.
    expect([...seenBehindMore]).toEqual([721, 768, 900, 1024]);
  }, 60_000);

  it("opens More with the keyboard, reaches its actions with Tab, and its Share works", async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 768 });
    const more = page.locator(".lm-header").getByRole("button", { name: "More", exact: true });
    await more.focus();
    await page.keyboard.press("Enter");
    expect(await more.getAttribute("aria-expanded")).toBe("true");
    const focusedName = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await page.keyboard.press("Tab");
    expect(await focusedName()).toBe("Export");
    await page.keyboard.press("Tab");
    expect(await focusedName()).toBe("Share");
    // Escape closes the list and gives the focus back to More.
    await page.keyboard.press("Escape");
    expect(await more.getAttribute("aria-expanded")).toBe("false");
    expect(await focusedName()).toBe("More");
    // Tabbing out of the open list closes it.
    await page.keyboard.press("Enter");
    for (const _ of ["Export", "Share", "Invite agent", "Settings"]) await page.keyboard.press("Tab");
    expect(await focusedName()).toBe("Settings");
    expect(await more.getAttribute("aria-expanded")).toBe("false");
    // An action behind More does its work and closes the list.
    await more.click();
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await page.getByRole("textbox", { name: /Share link/ }).waitFor();
    expect(await more.getAttribute("aria-expanded")).toBe("false");
  });
});

describe("the timeline follows new content", () => {
  it.override({ contextOptions: { viewport: { width: 1000, height: 700 } } });
  let mock: MockLlm;
  let page: Page;
  it.beforeEach(async ({ page: opened, mock: started }) => {
    page = opened;
    mock = started;
    await configureEndpoint(page, mock.url);
    // A conversation taller than the screen.
    mock.enqueue({
      chunks: [
        Array.from({ length: 40 }, (_, index) => `Earlier paragraph ${index + 1}: some history to scroll past.`).join(
          "\n\n",
        ),
      ],
    });
    await send(page, "Tell me a long story");
    await page.getByText("Earlier paragraph 40:").waitFor({ timeout: 30_000 });
    await settled();
  });
  const settled = () =>
    waitFor(async () => /^(Done|Ready)/.test((await page.getByRole("status").textContent()) ?? ""), 60_000);
  /** Pixels between the bottom of what is shown and the bottom of the timeline. */
  const belowView = () =>
    page.locator(".lm-main").evaluate((main) => main.scrollHeight - main.scrollTop - main.clientHeight);
  const atBottom = async () => (await belowView()) < 16;
  /** Fully inside the timeline's visible area. */
  const inView = (text: string, exact = false) =>
    page.getByText(text, { exact }).evaluate((element) => {
      // A held message's text replaced by its drawn one between finding and reading it: not in view yet.
      const main = element.closest(".lm-main");
      if (!main) return false;
      const box = element.getBoundingClientRect();
      const view = main.getBoundingClientRect();
      return box.height > 0 && box.top >= view.top && box.bottom <= view.bottom;
    });
  const prose = (label: string, count: number) =>
    Array.from({ length: count }, (_, index) => `${label} ${index + 1}: more to read.`).join("\n\n") + "\n\n";
  const jumpButton = () => page.getByRole("button", { name: "Jump to latest" });

  it("at the bottom, new prose, a code block and a new panel keep the bottom in view; the panel draws without scrolling", async () => {
    // The last growth may be laid out a frame after "Done" shows.
    await waitFor(atBottom, 10_000);
    const [first, second] = [createGate(), createGate()];
    mock.enqueue({
      chunks: [
        prose("Fresh paragraph", 3),
        { waitFor: first.promise },
        prose("Streaming paragraph", 30),
        { waitFor: second.promise },
        `${FENCE}tsx agent.run\n`,
        'const total = [1, 2, 3].reduce((sum, value) => sum + value, 0)\nconsole.log("total", total)\n',
        "mount({ ui: () => <Card><CardContent><p>Panel at the end</p><Button>Panel button</Button></CardContent></Card> })\n",
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Noted."] });
    mock.enqueue({ chunks: ["Noted."] });
    await send(page, "Go on");
    await page.getByText("Fresh paragraph 3:").waitFor({ timeout: 30_000 });
    await waitFor(atBottom, 10_000);
    first.open();
    await page.getByText("Streaming paragraph 30:").waitFor({ timeout: 30_000 });
    await waitFor(() => inView("Streaming paragraph 30:"), 10_000);
    await waitFor(atBottom, 10_000);
    second.open();
    // No scrolling by the test: the new panel is followed, so it is near the viewport and drawn.
    await page.getByRole("button", { name: "Panel button" }).waitFor({ timeout: 30_000 });
    await waitFor(() => inView("Panel at the end", true), 10_000);
    await settled();
    await waitFor(atBottom, 10_000);
    expect(await jumpButton().count()).toBe(0);
  }, 120_000);

  it("a followed reply is at the bottom in every frame that paints it (the growth is followed before its paint)", async () => {
    await waitFor(atBottom, 10_000);
    // After each painted frame (a task posted from its animation callback runs after the paint), unless the DOM
    // changed since that callback: how far above the bottom the view was left.
    await page.evaluate(() => {
      const record = window as unknown as { painted: { frames: number; below: number[]; stop: boolean } };
      const painted = (record.painted = { frames: 0, below: [] as number[], stop: false });
      const main = document.querySelector<HTMLElement>(".lm-main")!;
      let mutated = false;
      new MutationObserver(() => void (mutated = true)).observe(main, {
        childList: true,
        subtree: true,
        characterData: true,
      });
      let lastHeight = main.scrollHeight;
      const frame = () => {
        if (painted.stop) return;
        mutated = false;
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          channel.port1.close();
          if (mutated || main.scrollHeight === lastHeight) return;
          lastHeight = main.scrollHeight;
          painted.frames += 1;
          painted.below.push(main.scrollHeight - main.scrollTop - main.clientHeight);
        };
        channel.port2.postMessage(null);
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    mock.enqueue({
      chunks: Array.from({ length: 24 }, (_, index) => [prose(`Grown ${index + 1}`, 2), { pauseMs: 40 }]).flat(),
    });
    await send(page, "More, in small pieces");
    await page.getByText("Grown 24 2:").waitFor({ timeout: 30_000 });
    await settled();
    const painted = await page.evaluate(() => {
      const record = window as unknown as { painted: { frames: number; below: number[]; stop: boolean } };
      record.painted.stop = true;
      return record.painted;
    });
    // The reply grew the timeline in many painted frames, and none of them showed it short of the bottom.
    expect(painted.frames).toBeGreaterThan(5);
    expect(Math.max(...painted.below)).toBeLessThanOrEqual(2);
  }, 120_000);

  it("scrolling up stops following and offers Jump to latest, which scrolls down and follows again", async () => {
    const [first, second] = [createGate(), createGate()];
    mock.enqueue({
      chunks: [
        prose("Opening", 2),
        { waitFor: first.promise },
        prose("While away", 20),
        { waitFor: second.promise },
        prose("After the jump", 20),
      ],
    });
    await send(page, "Keep going");
    await page.getByText("Opening 2:").waitFor({ timeout: 30_000 });
    expect(await jumpButton().count()).toBe(0);

    // The reader scrolls up to reread.
    const main = await page.locator(".lm-main").boundingBox();
    await page.mouse.move(main!.x + main!.width / 2, main!.y + main!.height / 2);
    await page.mouse.wheel(0, -800);
    await jumpButton().waitFor({ timeout: 10_000 });
    await waitFor(async () => (await belowView()) > 400, 5_000);
    const readingAt = await page.locator(".lm-main").evaluate((element) => element.scrollTop);

    // New content does not pull them down.
    first.open();
    await page.getByText("While away 20:").waitFor({ state: "attached", timeout: 30_000 });
    // Laid out and painted: a follow would have scrolled by now.
    await nextPaint(page);
    expect(
      Math.abs((await page.locator(".lm-main").evaluate((element) => element.scrollTop)) - readingAt),
    ).toBeLessThan(4);
    expect(await inView("While away 20:")).toBe(false);
    expect(await jumpButton().isVisible()).toBe(true);

    // Jump to latest: down to the newest, and following again.
    await jumpButton().click();
    await waitFor(() => inView("While away 20:"), 10_000);
    await waitFor(async () => (await jumpButton().count()) === 0, 10_000);
    second.open();
    await page.getByText("After the jump 20:").waitFor({ timeout: 30_000 });
    await waitFor(() => inView("After the jump 20:"), 10_000);
    await settled();
    await waitFor(atBottom, 10_000);
  }, 120_000);

  it("a scroll up stops following even when the timeline grows in the same frame (messages laid out as they come near)", async () => {
    await waitFor(atBottom, 10_000);
    const scrollTop = () => page.locator(".lm-main").evaluate((element) => element.scrollTop);
    // A press on the scroller and a scroll to the top, as dragging the scrollbar's thumb does; in the frame that
    // dispatches the scroll, the timeline grows, as held messages near the top do when they are laid out.
    await page.locator(".lm-main").evaluate(
      (main) =>
        new Promise<void>((done) => {
          main.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
          main.scrollTo(0, 0);
          requestAnimationFrame(() => {
            const timeline = main.querySelector<HTMLElement>(".lm-timeline")!;
            timeline.style.minHeight = `${timeline.offsetHeight + 1500}px`;
            done();
          });
        }),
    );
    await jumpButton().waitFor({ timeout: 10_000 });
    // Laid out and painted twice more: a follow would have pulled the view back down by now.
    await nextPaint(page);
    await nextPaint(page);
    expect(await scrollTop()).toBeLessThan(4);
    // The top's messages are drawn as they come near (on a loaded machine a few frames later); the view stays up.
    await waitFor(() => inView("Earlier paragraph 1:"), 10_000);
    expect(await scrollTop()).toBeLessThan(4);
  }, 120_000);

  it("clicking inside a panel does not stop following", async () => {
    const gate = createGate();
    mock.enqueue({
      chunks: [
        "A counter:\n\n",
        `${FENCE}tsx agent.run\n`,
        "function Counter() {\n  const [count, setCount] = useState(0);\n",
        "  return <Card><CardContent><p>Counter panel</p><Button onClick={() => setCount(count + 1)}>Clicked {count} times</Button></CardContent></Card>;\n}\n",
        "mount({ ui: Counter })\n",
        `${FENCE}\n\n`,
        { waitFor: gate.promise },
        prose("Below the panel", 30),
      ],
    });
    mock.enqueue({ chunks: ["Noted."] });
    mock.enqueue({ chunks: ["Noted."] });
    await send(page, "Make me a counter");
    const counter = page.getByRole("button", { name: "Clicked 0 times" });
    await counter.waitFor({ timeout: 30_000 });
    await waitFor(atBottom, 10_000);
    // A click on the panel's text and on its button: neither is scrolling.
    await page.getByText("Counter panel", { exact: true }).click();
    await counter.click();
    await page.getByRole("button", { name: "Clicked 1 times" }).waitFor({ timeout: 10_000 });
    gate.open();
    await page.getByText("Below the panel 30:").waitFor({ timeout: 30_000 });
    await waitFor(() => inView("Below the panel 30:"), 10_000);
    expect(await jumpButton().count()).toBe(0);
  }, 120_000);
});

describe("on a phone, an empty session opens at its top and a reply is followed to its end", () => {
  /** From now on, every frame: was Jump to latest on screen in any painted frame? */
  const jumpNeverShown = (page: Page) =>
    page.evaluate(() => {
      const record = window as unknown as { jumpShown?: boolean; jumpWatch?: number };
      record.jumpShown = false;
      const generation = (record.jumpWatch = (record.jumpWatch ?? 0) + 1);
      const look = () => {
        if (record.jumpWatch !== generation) return;
        if (document.querySelector(".lm-jump")) record.jumpShown = true;
        requestAnimationFrame(look);
      };
      look();
    });
  const jumpWasShown = (page: Page) => page.evaluate(() => (window as unknown as { jumpShown?: boolean }).jumpShown);
  /** The element's box, relative to the timeline's visible area. */
  const shownIn = (page: Page, locator: ReturnType<Page["locator"]>) =>
    locator.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const view = element.closest(".lm-main")!.getBoundingClientRect();
      return { top: box.top - view.top, bottom: box.bottom - view.top, viewHeight: view.height };
    });

  for (const height of [667, 812]) {
    describe(`375×${height}`, () => {
      it.override({ contextOptions: { viewport: { width: 375, height } } });

      it("shows the welcome from its top, with Start the demo in view, and follows the demo once started", async ({
        page,
      }) => {
        const welcome = page.getByRole("region", { name: "Welcome to Livemark" });
        await welcome.getByRole("button", { name: "Stream some Markdown" }).waitFor({ timeout: 30_000 });
        await jumpNeverShown(page);
        // Laid out and painted, with its lazy parts in: a follow would have scrolled by now.
        await nextPaint(page);
        await nextPaint(page);
        expect(await page.locator(".lm-main").evaluate((main) => main.scrollHeight > main.clientHeight)).toBe(true);
        expect(await page.locator(".lm-main").evaluate((main) => main.scrollTop)).toBe(0);
        const title = await shownIn(page, welcome.getByRole("heading", { name: "Welcome to Livemark" }));
        expect(title.top).toBeGreaterThanOrEqual(0);
        const start = await shownIn(page, page.getByRole("button", { name: "Start the demo" }));
        expect(start.top).toBeGreaterThanOrEqual(0);
        expect(start.bottom).toBeLessThanOrEqual(start.viewHeight);
        expect(await jumpWasShown(page)).toBe(false);

        // Starting the demo follows its reply as any conversation.
        await page.getByRole("button", { name: "Start the demo" }).click();
        await waitDone(page, 60_000);
        await waitFor(
          () =>
            page.locator(".lm-main").evaluate((main) => main.scrollHeight - main.scrollTop - main.clientHeight < 16),
          10_000,
        );
        // Not even for a moment while the demo's first message replaced the welcome.
        expect(await jumpWasShown(page)).toBe(false);
      }, 90_000);
    });
  }

  describe("375×812, the page scrolling by itself", () => {
    it.override({ contextOptions: { viewport: { width: 375, height: 812 } } });

    it("undoes every scroll the person did not make, the second as the first, and again after Jump to latest", async ({
      page,
      mock,
    }) => {
      await configureEndpoint(page, mock.url);
      const gates = [createGate(), createGate(), createGate(), createGate()];
      const part = (label: string) =>
        Array.from({ length: 8 }, (_, index) => `${label} ${index + 1}: a sentence of a reply to read.`).join("\n\n") +
        "\n\n";
      mock.enqueue({
        chunks: [
          part("Part one"),
          { waitFor: gates[0].promise },
          part("Part two"),
          { waitFor: gates[1].promise },
          part("Part three"),
          { waitFor: gates[2].promise },
          part("Part four"),
          { waitFor: gates[3].promise },
          "The very last line.",
        ],
      });
      const main = page.locator(".lm-main");
      const belowView = () =>
        main.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
      /**
       * What a layout shift does: the timeline grows (followed to its new bottom), then shrinks back, and the
       * browser moves the scroller up to its new bottom with no wheel, touch or key (no person).
       */
      const pageScrollsUp = async () => {
        await main.evaluate((element) => {
          const spacer = document.createElement("div");
          spacer.className = "test-spacer";
          spacer.style.height = "400px";
          element.firstElementChild!.append(spacer);
        });
        await waitFor(async () => (await belowView()) < 16, 5_000);
        await main.evaluate((element) => element.querySelector(".test-spacer")!.remove());
      };
      const jump = page.getByRole("button", { name: "Jump to latest" });
      await send(page, "Tell me in parts");
      await page.getByText("Part one 8:").waitFor({ timeout: 30_000 });
      await waitFor(async () => (await belowView()) < 16, 10_000);
      await jumpNeverShown(page);

      // Twice: each escape the page causes is undone, the second as the first.
      for (const [index, label] of [
        [0, "Part two 8:"],
        [1, "Part three 8:"],
      ] as const) {
        await pageScrollsUp();
        await waitFor(async () => (await belowView()) < 16, 5_000);
        gates[index].open();
        await page.getByText(label).waitFor({ timeout: 30_000 });
        await waitFor(async () => (await belowView()) < 16, 5_000);
      }
      expect(await jumpWasShown(page)).toBe(false);

      // The person scrolls up (Jump to latest shows), then jumps back: from then on the page's escapes are undone again.
      const box = (await main.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, -600);
      await jump.waitFor({ timeout: 10_000 });
      await jump.click();
      await waitFor(async () => (await jump.count()) === 0 && (await belowView()) < 16, 10_000);
      await jumpNeverShown(page);
      await pageScrollsUp();
      await waitFor(async () => (await belowView()) < 16, 5_000);
      gates[2].open();
      await page.getByText("Part four 8:").waitFor({ timeout: 30_000 });
      await waitFor(async () => (await belowView()) < 16, 5_000);
      gates[3].open();
      await waitDone(page, 30_000);
      await waitFor(async () => (await belowView()) < 16, 5_000);
      expect(await jumpWasShown(page)).toBe(false);
    }, 120_000);
  });

  describe("375×812 at 4× CPU", () => {
    it.override({ contextOptions: { viewport: { width: 375, height: 812 } } });

    it("follows a two-turn reply to its last line without Jump to latest appearing", async ({ page, mock }) => {
      await configureEndpoint(page, mock.url);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      try {
        const lines = (label: string, count: number) =>
          Array.from({ length: count }, (_, index) => `${label} ${index + 1}: a sentence of a reply to read.`).join(
            "\n\n",
          ) + "\n\n";
        // Turn 1: prose and code whose output goes back to the model; turn 2: the answer, longer than the screen.
        mock.enqueue({
          chunks: [
            lines("First turn", 6),
            `${FENCE}ts agent.run\n`,
            'console.log("computed", [1, 2, 3].map((value) => value * 2))\n',
            `${FENCE}\n`,
          ],
        });
        mock.enqueue({
          chunks: [
            ...Array.from({ length: 12 }, (_, index) => lines(`Second turn part ${index + 1}, line`, 3)),
            "The very last line.",
          ],
        });
        await jumpNeverShown(page);
        await send(page, "Compute and explain");
        await waitDone(page, 60_000);
        await page.getByText("The very last line.").waitFor({ timeout: 30_000 });
        await waitFor(async () => {
          const last = await shownIn(page, page.getByText("The very last line."));
          return last.top >= 0 && last.bottom <= last.viewHeight;
        }, 10_000);
        expect(mock.requests.length).toBe(2);
        expect(await jumpWasShown(page)).toBe(false);
      } finally {
        await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
      }
    }, 120_000);
  });
});
