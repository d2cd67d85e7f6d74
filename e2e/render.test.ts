/**
 * The host renderer in Chromium: MountViews on a test page (e2e/fixtures/
 * render-test.html) fed realm messages directly — hostile ones included —
 * with no realm behind them. Checks what reaches the page: no script runs,
 * no dialog opens, no request leaves, nothing draws outside its panel or
 * restyles the app; and that the kit, forms, charts and icons work.
 */
import { afterAll, afterEach, beforeEach, describe, expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { buildRenderTestPage } from "./fixtures/buildRenderTestPage";
import {
  launchBrowser,
  recordPageRequests,
  serveRecorder,
  serveStatic,
  waitFor,
  type PageRequestLog,
  type TestServer,
} from "./harness";
import { appTest, nextPaint } from "./fixture";
import type { SnapshotNode, UiEventMessage } from "../src/wire/mount";

const H = { $handler: true } as const;

let browser: Browser;
let server: TestServer;
let recorder: TestServer;
let pageDir: string;
let context: BrowserContext;
let page: Page;
let dialogs: string[];
let pageErrors: string[];
let requests: PageRequestLog;

const it = appTest();
it.beforeAll(async ({ browser: launched, attacker }) => {
  browser = launched;
  recorder = attacker;
  pageDir = await buildRenderTestPage();
  server = await serveStatic(pageDir);
  // One page for the file (a new context and page cost ~2 s on a 2-core
  // machine); each test starts from renderTest.reset() and its own mount ids.
  context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  ({ page, log: requests } = await openPage(context));
});

afterAll(async () => {
  await context?.close();
  await server?.close();
});

async function openPage(
  target: BrowserContext,
  url = `${server.url}render-test.html`,
): Promise<{ page: Page; log: PageRequestLog }> {
  const opened = await target.newPage();
  opened.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  opened.on("pageerror", (error) => void pageErrors.push(String(error)));
  const log = recordPageRequests(opened);
  await opened.goto(url);
  await opened.waitForFunction(() => "renderTest" in window);
  return { page: opened, log };
}

beforeEach(async () => {
  dialogs = [];
  pageErrors = [];
  recorder.clearRequests();
  await page.evaluate(() => (window as never as { renderTest: { reset(): Promise<void> } }).renderTest.reset());
});

afterEach(() => {
  expect(dialogs).toEqual([]);
  expect(pageErrors).toEqual([]);
});

// --- helpers ----------------------------------------------------------------

let nextId = 1;

/** A snapshot node: el("div", { className: "x" }, "text", el(...)). */
function el(
  type: string,
  props: Record<string, unknown> = {},
  ...children: Array<SnapshotNode | string>
): SnapshotNode {
  return {
    id: nextId++,
    type,
    props: props as never,
    children: children.map((child) =>
      typeof child === "string" ? { id: nextId++, type: "#text", text: child } : child,
    ),
  };
}

async function receive(target: Page, message: unknown): Promise<Array<{ code: string }>> {
  return target.evaluate(
    (value) =>
      (window as never as { renderTest: { receive(m: unknown): Promise<Array<{ code: string }>> } }).renderTest.receive(
        value,
      ),
    message,
  );
}

async function open(mountId: string, nodes: SnapshotNode[], target: Page = page): Promise<void> {
  const errors = await receive(target, { type: "mount", kind: "open", mountId, snapshot: { nodes } });
  expect(errors).toEqual([]);
}

async function events(target: Page = page): Promise<Array<Omit<UiEventMessage, "type">>> {
  return target.evaluate(() => (window as never as { renderTest: { events: [] } }).renderTest.events);
}

async function lastEvent(handler: string) {
  return waitFor(async () => (await events()).filter((event) => event.handler === handler).at(-1));
}

async function unknownNames(): Promise<string[]> {
  return page.evaluate(() => (window as never as { renderTest: { unknown: string[] } }).renderTest.unknown);
}

async function reportedCodes(): Promise<string[]> {
  return page.evaluate(() =>
    (window as never as { renderTest: { errors: Array<{ code: string }> } }).renderTest.errors.map(
      (error) => error.code,
    ),
  );
}

const panel = (mountId: string) => page.locator(`[data-mount-id="${mountId}"]`);

async function box(selector: string) {
  const result = await page.locator(selector).first().boundingBox();
  if (!result) throw new Error(`no box for ${selector}`);
  return result;
}

function inside(
  inner: { x: number; y: number; width: number; height: number },
  outer: { x: number; y: number; width: number; height: number },
): boolean {
  return (
    inner.x >= outer.x - 1 &&
    inner.y >= outer.y - 1 &&
    inner.x + inner.width <= outer.x + outer.width + 1 &&
    inner.y + inner.height <= outer.y + outer.height + 1
  );
}

/** The element painted at the centre of the app header (what a click there would hit). */
async function elementAtHeader(): Promise<string> {
  return page.evaluate(() => {
    const header = document.getElementById("app-header")!.getBoundingClientRect();
    const hit = document.elementFromPoint(header.left + header.width / 2, header.top + header.height / 2);
    return hit?.closest("#app-header") ? "app-header" : (hit?.outerHTML.slice(0, 120) ?? "nothing");
  });
}

async function appLook() {
  return page.evaluate(() => {
    const pick = (element: Element) => {
      const style = getComputedStyle(element);
      return {
        background: style.backgroundColor,
        color: style.color,
        position: style.position,
        padding: style.padding,
        display: style.display,
        zIndex: style.zIndex,
        font: style.fontFamily,
        animation: style.animationName,
      };
    };
    return {
      body: pick(document.body),
      header: pick(document.getElementById("app-header")!),
      probe: pick(document.getElementById("app-probe")!),
      headerBox: document.getElementById("app-header")!.getBoundingClientRect().toJSON(),
    };
  });
}

// --- tests ----------------------------------------------------------------

describe("hostile trees", () => {
  it("run no script, open no dialog, send no request, navigate nowhere", async () => {
    const R = recorder.origin;
    requests.clear();
    const before = await page.evaluate(() => ({
      scripts: document.scripts.length,
      links: document.querySelectorAll("link").length,
      url: location.href,
    }));
    await open("hostile", [
      el("script", {}, "window.__pwned = 1; alert('script')"),
      el("img", { src: `${R}/img.png`, onError: "alert('img')" }),
      el("img", { src: "x", onerror: "alert('img2')", srcSet: `${R}/srcset.png 2x` }),
      el("div", { dangerouslySetInnerHTML: { __html: "<img src=x onerror=alert('html')>" } }),
      el("iframe", { srcdoc: "<script>parent.alert('frame')</script>", src: `${R}/frame` }),
      el("object", { data: `${R}/object` }),
      el("embed", { src: `${R}/embed` }),
      el("link", { rel: "stylesheet", href: `${R}/link.css` }),
      el("style", {}, `@import url(${R}/import.css); body { background: red }`),
      el("meta", { httpEquiv: "refresh", content: `0;url=${R}/meta` }),
      el("base", { href: `${R}/` }),
      el("a", { href: "javascript:alert('link')", "data-testid": "js-link" }, "javascript link"),
      el("a", { href: " JaVa\tScRiPt:alert('link2')", "data-testid": "js-link-2" }, "obfuscated link"),
      el(
        "svg",
        { onLoad: "alert('svg')", width: 20, height: 20 },
        el("image", { href: `${R}/svg-image.png` }),
        el("use", { href: `${R}/sprite.svg#a` }),
        el("foreignObject", {}, el("img", { src: `${R}/fo.png` })),
        el("animate", { attributeName: "href", to: "javascript:alert('animate')" }),
        el("rect", { width: 10, height: 10, fill: `url(${R}/paint.svg#p)` }),
      ),
      el("div", { style: { backgroundImage: `url(${R}/style-bg.png)`, width: 10, height: 10 } }),
      el("div", { style: { background: `image-set("${R}/image-set.png" 1x)`, width: 10, height: 10 } }),
      el("div", { style: { cursor: `url(${R}/cursor.cur), auto`, width: 10, height: 10 } }),
      el("div", { className: `bg-[url(${R}/class.png)] w-4 h-4` }),
      el(
        "form",
        { action: `${R}/submit`, method: "post", target: "_top", onSubmit: H },
        el("input", { name: "q", defaultValue: "x", form: "other" }),
        el("input", { type: "image", src: `${R}/input-image.png` }),
        el("button", { type: "submit", formAction: `${R}/form-action`, "data-testid": "submit" }, "Send"),
      ),
      el("video", { poster: `${R}/poster.png`, src: `${R}/video.mp4` }),
      el("audio", { src: `${R}/audio.mp3`, autoPlay: true }),
      el("div", { popover: "manual", id: "pop" }, "popover"),
      el("button", { popoverTarget: "pop", onClick: "alert('button')", "data-testid": "pop-button" }, "pop"),
      el("details", { open: true, onToggle: "alert('toggle')" }, el("summary", {}, "summary")),
      el("template", {}, el("img", { src: `${R}/template.png` })),
      el("input", { autoFocus: true, onFocus: "alert('focus')" }),
    ]);
    await page.getByTestId("js-link").click();
    await page.getByTestId("js-link-2").click();
    await page.getByTestId("pop-button").click();
    await page.getByTestId("submit").click();
    const submit = await lastEvent("onSubmit");
    expect(submit).toMatchObject({ mountId: "hostile", payload: { values: { q: "x" } } });
    // Whatever the clicks set off (a navigation, a popover, a script) has been laid out and painted.
    await nextPaint(page);

    const after = await page.evaluate(() => ({
      scripts: document.scripts.length,
      links: document.querySelectorAll("link").length,
      url: location.href,
      pwned: (window as never as { __pwned?: number }).__pwned,
      leaked: (window as never as { __leaked?: number }).__leaked,
      inMount: [...document.querySelectorAll(".lm-mount *")].map((element) => element.tagName.toLowerCase()),
      hrefs: [...document.querySelectorAll(".lm-mount a")].map((element) => element.getAttribute("href")),
      popoverOpen: document.querySelector(":popover-open") !== null,
    }));
    expect(after).toMatchObject({ scripts: before.scripts, links: before.links, url: before.url });
    expect(after.pwned).toBeUndefined();
    expect(after.leaked).toBeUndefined();
    for (const tag of [
      "script",
      "iframe",
      "object",
      "embed",
      "link",
      "style",
      "meta",
      "base",
      "image",
      "use",
      "foreignobject",
      "animate",
      "video",
      "audio",
      "template",
    ]) {
      expect(after.inMount, tag).not.toContain(tag);
    }
    expect(after.hrefs).toEqual([null, null]);
    expect(after.popoverOpen).toBe(false);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).not.toBe("INPUT");
    expect(recorder.requests).toEqual([]);
    expect(requests.outside(server.origin)).toEqual([]);
    const notes = await panel("hostile")
      .locator("[data-unknown-component]")
      .evaluateAll((elements) => elements.map((element) => element.getAttribute("data-unknown-component")));
    expect(notes).toEqual(
      expect.arrayContaining([
        "script",
        "iframe",
        "object",
        "embed",
        "link",
        "style",
        "meta",
        "base",
        "image",
        "use",
        "foreignObject",
        "animate",
        "video",
        "audio",
        "template",
      ]),
    );
    expect(await reportedCodes()).toEqual(expect.arrayContaining(["unknown-component", "unsafe-prop"]));
  });

  it("cannot smuggle a request past the CSS sanitizer inside a CSS string (this page has no CSP)", async () => {
    const R = recorder.origin;
    requests.clear();
    const smuggled = `'url("data:,' image-set("${R}/smuggled.png" 1x)`;
    await open("smuggle", [
      el("ul", { style: { listStyle: smuggled }, "data-testid": "smuggle-list" }, el("li", {}, "item")),
      el(
        "div",
        {
          style: { content: smuggled, listStyleImage: `"x" url(${R}/after-string.png)` },
          "data-testid": "smuggle-content",
        },
        "text",
      ),
      el("div", { style: { background: `"url(" -webkit-image-set("${R}/webkit.png" 1x) ")"`, width: 10, height: 10 } }),
    ]);
    // Styled, laid out and painted: every image the styles name has been asked for by now.
    await nextPaint(page);
    const computed = await page.evaluate(() => {
      const list = document.querySelector('[data-testid="smuggle-list"]')!;
      return { listStyleImage: getComputedStyle(list).listStyleImage, inline: list.getAttribute("style") ?? "" };
    });
    expect(computed.listStyleImage).toBe("none");
    expect(computed.inline).not.toContain("image-set");
    expect(recorder.requests).toEqual([]);
    expect(requests.outside(server.origin)).toEqual([]);
    expect(await reportedCodes()).toContain("unsafe-prop");
  });

  it("keep a position: fixed full-screen overlay inside its panel", async () => {
    await open("overlay", [
      el("p", {}, "before the overlay"),
      el(
        "div",
        { "data-testid": "overlay", style: { position: "fixed", inset: 0, zIndex: 2147483647, background: "red" } },
        "overlay",
      ),
      el("div", { style: { marginTop: -3000, height: 3100, background: "blue" } }),
      el("div", { style: { transform: "translateY(-2000px)", height: 50, background: "green" } }),
    ]);
    const overlay = page.getByTestId("overlay");
    expect(await overlay.evaluate((element) => getComputedStyle(element).position)).toBe("absolute");
    expect(inside(await box('[data-testid="overlay"]'), await box('[data-mount-id="overlay"]'))).toBe(true);
    expect(await elementAtHeader()).toBe("app-header");
    const viewport = page.viewportSize()!;
    const hitOutside = await page.evaluate(({ width, height }) => {
      const panelBox = document.querySelector('[data-mount-id="overlay"]')!.getBoundingClientRect();
      const x = width - 5;
      const y = height - 5;
      const isInPanel = x >= panelBox.left && x <= panelBox.right && y >= panelBox.top && y <= panelBox.bottom;
      return isInPanel ? "in-panel" : document.elementFromPoint(x, y)?.closest(".lm-mount") ? "mount" : "app";
    }, viewport);
    expect(hitOutside).not.toBe("mount");
  });

  it("keep className `fixed inset-0 z-50` from covering the app header", async () => {
    await open("classes", [
      el("p", {}, "some content"),
      el("div", { "data-testid": "cover", className: "fixed inset-0 z-50 bg-red-500 w-screen h-screen" }, "cover"),
      el("div", { "data-testid": "z", className: "relative z-[2147483647] -mt-96" }, "z"),
    ]);
    const cover = page.getByTestId("cover");
    expect(await cover.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(239, 68, 68)");
    expect(await cover.evaluate((element) => getComputedStyle(element).position)).toBe("absolute");
    expect(await page.getByTestId("z").evaluate((element) => getComputedStyle(element).zIndex)).toBe("100");
    expect(await elementAtHeader()).toBe("app-header");
    const coverBox = await box('[data-testid="cover"]');
    const panelBox = await box('[data-mount-id="classes"]');
    // w-screen/h-screen may be larger than the panel, but paint is clipped to it.
    expect(coverBox.y).toBeGreaterThanOrEqual(panelBox.y - 1);
  });

  it("cannot change the app's look with style tags, utilities or keyframes", async () => {
    const look = await appLook();
    await open("styles", [
      el("style", {}, "body { background: red !important } .app-header { display: none }"),
      el(
        "div",
        {
          className: "p-4 bg-red-500 fixed hidden animate-spin [&_body]:bg-red-500 dark:bg-black font-mono",
          "data-testid": "styled",
        },
        "styled",
      ),
      el("div", { className: "[body_&]:hidden *:fixed", style: { position: "fixed", top: 0 } }, el("span", {}, "x")),
    ]);
    // Utilities do apply inside the mount...
    const inner = await page.getByTestId("styled").evaluate((element) => {
      const style = getComputedStyle(element);
      return {
        padding: style.padding,
        background: style.backgroundColor,
        display: style.display,
        animation: style.animationName,
      };
    });
    expect(inner).toEqual({
      padding: "16px",
      background: "rgb(239, 68, 68)",
      display: "none",
      animation: "lm-mount-spin",
    });
    // ...and nowhere else: the app element carrying the same class names is untouched.
    expect(await appLook()).toEqual(look);
    const selectors = await page.evaluate(() => {
      const sheets = [
        ...document.adoptedStyleSheets,
        ...[...document.querySelectorAll("style")].map((element) => element.sheet!),
      ];
      const out: string[] = [];
      const walk = (rules: CSSRuleList) => {
        for (const rule of rules) {
          if (rule instanceof CSSStyleRule) out.push(rule.selectorText);
          else if (rule instanceof CSSGroupingRule) walk(rule.cssRules);
        }
      };
      sheets.forEach((sheet) => walk(sheet.cssRules));
      return out;
    });
    expect(selectors.length).toBeGreaterThan(50);
    for (const selector of selectors) {
      // Split the list on top-level commas only (`:where(h1, h2)` is one part).
      let flat = selector;
      while (/\([^()]*\)/.test(flat)) flat = flat.replace(/\([^()]*\)/g, "");
      for (const part of flat.split(",")) expect(part.trim(), selector).toMatch(/^(\S+ )?\.lm-mount([ [:]|$)/);
    }
  });
});

describe("inputs and forms", () => {
  it("keeps the caret when the realm echoes values late, applies values the realm chooses", async () => {
    await open("caret", [el("input", { value: "", onChange: H, "data-testid": "field" })]);
    const field = page.getByTestId("field");
    await field.click();
    await page.keyboard.type("hello");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.type("X");
    expect(await field.inputValue()).toBe("helXlo");
    const reported = (await events())
      .filter((event) => event.handler === "onChange")
      .map((event) => event.payload.value);
    expect(reported).toEqual(["h", "he", "hel", "hell", "hello", "helXlo"]);
    const id = (await events())[0].nodeId;
    // The realm answers each change, late, in order.
    for (const value of reported) {
      await receive(page, {
        type: "mount",
        kind: "ops",
        mountId: "caret",
        ops: [{ op: "props", id, props: { value, onChange: H, "data-testid": "field" } }],
      });
      expect(await field.inputValue()).toBe("helXlo");
      expect(
        await field.evaluate((element: HTMLInputElement) => [element.selectionStart, element.selectionEnd]),
      ).toEqual([4, 4]);
    }
    // A value the realm picked on its own (uppercasing, clearing) wins.
    await receive(page, {
      type: "mount",
      kind: "ops",
      mountId: "caret",
      ops: [{ op: "props", id, props: { value: "HELXLO", onChange: H, "data-testid": "field" } }],
    });
    expect(await field.inputValue()).toBe("HELXLO");
    await receive(page, {
      type: "mount",
      kind: "ops",
      mountId: "caret",
      ops: [{ op: "props", id, props: { value: "", onChange: H, "data-testid": "field" } }],
    });
    expect(await field.inputValue()).toBe("");
  });

  it("submits every named field with host-owned values, shows field errors until the next submit", async () => {
    await open("form", [
      el(
        "form",
        { onSubmit: H, noValidate: true },
        el("Label", { htmlFor: "email" }, "Email"),
        el("Input", { id: "email", name: "email", placeholder: "you@example.com" }),
        el("Checkbox", { id: "agree", name: "agree" }),
        el("Label", { htmlFor: "agree" }, "I agree"),
        el("Switch", { name: "news", defaultChecked: true, "aria-label": "News" }),
        el(
          "Select",
          { name: "fruit" },
          el(
            "SelectTrigger",
            { id: "fruit", "aria-label": "Fruit" },
            el("SelectValue", { placeholder: "Pick a fruit" }),
          ),
          el(
            "SelectContent",
            {},
            el("SelectItem", { value: "apple" }, "Apple"),
            el("SelectItem", { value: "banana" }, "Banana"),
          ),
        ),
        el("Slider", { name: "volume", defaultValue: [20], max: 100, "aria-label": "Volume" }),
        el("Textarea", { name: "notes", "aria-label": "Notes" }),
        el("input", { name: "tag", "aria-label": "Tag 1" }),
        el("input", { name: "tag", "aria-label": "Tag 2" }),
        el("label", {}, el("input", { type: "radio", name: "size", value: "s" }), "Small"),
        el("label", {}, el("input", { type: "radio", name: "size", value: "m" }), "Medium"),
        el("Button", { type: "submit" }, "Submit"),
      ),
    ]);
    const root = panel("form");
    await root.getByLabel("Email").fill("not-an-email");
    await root.getByText("I agree").click();
    await root.getByLabel("Fruit").selectOption("banana");
    await root.getByLabel("Notes").fill("hi there");
    await root.getByLabel("Tag 1").fill("a");
    await root.getByLabel("Tag 2").fill("b");
    await root.getByLabel("Medium").check();
    await root.getByRole("button", { name: "Submit" }).click();
    const first = await lastEvent("onSubmit");
    expect(first!.payload.values).toEqual({
      email: "not-an-email",
      agree: true,
      news: true,
      fruit: "banana",
      volume: 20,
      notes: "hi there",
      tag: ["a", "b"],
      size: "m",
    });
    expect(await root.getByRole("checkbox").getAttribute("aria-checked")).toBe("true");

    await receive(page, {
      type: "mount",
      kind: "form-errors",
      mountId: "form",
      errors: { email: "Enter a valid email", "": "Please fix the errors below" },
    });
    const email = root.getByLabel("Email");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    const describedBy = await email.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe("Enter a valid email");
    await expect.poll(() => root.getByText("Please fix the errors below").count()).toBe(1);

    await email.fill("me@example.com");
    await root.getByRole("button", { name: "Submit" }).click();
    await expect.poll(async () => (await events()).filter((event) => event.handler === "onSubmit").length).toBe(2);
    expect(await email.getAttribute("aria-invalid")).toBeNull();
    expect(await root.getByText("Enter a valid email").count()).toBe(0);
    expect((await lastEvent("onSubmit"))!.payload.values!.email).toBe("me@example.com");
  });

  it("turns DOM and kit events into plain payloads", async () => {
    await open("events", [
      el("Button", { onClick: H }, "Press"),
      el("input", { "aria-label": "Keys", onKeyDown: H, name: "k" }),
      el("Checkbox", { "aria-label": "Check", onCheckedChange: H }),
      el("Switch", { "aria-label": "Toggle", onCheckedChange: H }),
      el(
        "Select",
        { onValueChange: H },
        el("SelectTrigger", { "aria-label": "Choice" }),
        el("SelectContent", {}, el("SelectItem", { value: "one" }, "One"), el("SelectItem", { value: "two" }, "Two")),
      ),
      el(
        "Tabs",
        { defaultValue: "a", onValueChange: H },
        el("TabsList", {}, el("TabsTrigger", { value: "a" }, "Tab A"), el("TabsTrigger", { value: "b" }, "Tab B")),
        el("TabsContent", { value: "a" }, "Content A"),
        el("TabsContent", { value: "b" }, "Content B"),
      ),
      el("Slider", { "aria-label": "Level", defaultValue: [5], max: 10, onValueChange: H }),
      el("div", { onMouseEnter: H, "data-testid": "hover" }, "hover me"),
    ]);
    const root = panel("events");
    await root.getByRole("button", { name: "Press" }).click();
    expect((await lastEvent("onClick"))!.payload).toEqual({});
    await root.getByLabel("Keys").press("Enter");
    expect((await lastEvent("onKeyDown"))!.payload).toEqual({ name: "k", key: "Enter" });
    await root.getByLabel("Check").click();
    expect((await lastEvent("onCheckedChange"))!.payload).toEqual({ checked: true });
    await root.getByLabel("Toggle").click();
    await root.getByLabel("Toggle").click();
    expect((await lastEvent("onCheckedChange"))!.payload).toEqual({ checked: false });
    await root.getByLabel("Choice").selectOption("two");
    expect((await lastEvent("onValueChange"))!.payload).toEqual({ value: "two" });
    await root.getByRole("tab", { name: "Tab B" }).click();
    expect((await lastEvent("onValueChange"))!.payload).toEqual({ value: "b" });
    expect(await root.getByText("Content B").count()).toBe(1);
    expect(await root.getByText("Content A").count()).toBe(0);
    await root.getByLabel("Level").focus();
    await page.keyboard.press("ArrowRight");
    expect((await lastEvent("onValueChange"))!.payload).toEqual({ value: [6] });
    await page.getByTestId("hover").hover();
    expect((await lastEvent("onMouseEnter"))!.payload).toEqual({});
    expect((await events()).every((event) => event.mountId === "events" && Number.isInteger(event.nodeId))).toBe(true);
  });

  it("tells a key handler no printable key (typing a key into a look-alike field spells nothing), only the keys UIs steer by", async () => {
    await open("keys", [
      el("input", { "aria-label": "Token", onKeyDown: H, onKeyUp: H, name: "t" }),
      el("div", { tabIndex: 0, "aria-label": "Fake field", onKeyDown: H }, "type here"),
    ]);
    const root = panel("keys");
    const typed = "sk-Zq81 LmPw0v";
    await root.getByLabel("Token").pressSequentially(typed);
    // The field still shows what was typed (the value is the host's).
    expect(await root.getByLabel("Token").inputValue()).toBe(typed);
    for (const key of ["Enter", "Escape", "Tab"]) {
      await root.getByLabel("Token").focus();
      await root.getByLabel("Token").press(key);
    }
    await root.getByLabel("Fake field").focus();
    await root.getByLabel("Fake field").press("x");
    await root.getByLabel("Fake field").press("ArrowDown");
    await expect
      .poll(async () => (await events()).filter((event) => event.handler === "onKeyDown").length)
      .toBe(typed.length + 5);
    const keys = (await events())
      .filter((event) => event.handler === "onKeyDown" || event.handler === "onKeyUp")
      .map((event) => event.payload.key);
    expect(keys.filter((key) => key !== "Unidentified")).toEqual([
      "Enter",
      "Enter",
      "Escape",
      "Escape",
      "Tab",
      "ArrowDown",
    ]);
    expect(JSON.stringify(await events())).not.toMatch(/Zq81|Lm|"code"/);
  });

  it("draws no text-security discs and warns of any field that masks its text, as of a password field", async () => {
    const origin = (mountId: string) =>
      panel(mountId).locator("xpath=preceding-sibling::div[contains(@class, 'lm-mount-origin')][1]");
    await open("plain", [el("input", { "aria-label": "Name", type: "text" })]);
    await open("masked", [
      el("input", {
        "aria-label": "Key",
        type: "text",
        style: { WebkitTextSecurity: "disc" },
        className: "[-webkit-text-security:disc] p-1",
      }),
    ]);
    await open("masked-class", [
      el("Textarea", { "aria-label": "Secret", className: "[-webkit-text-security:square]" }),
    ]);
    await open("password", [el("Input", { "aria-label": "Password", type: "password" })]);
    for (const [mountId, label] of [
      ["masked", "Key"],
      ["masked-class", "Secret"],
    ] as const) {
      const field = panel(mountId).getByLabel(label);
      await field.pressSequentially("abc");
      expect(
        await field.evaluate((element) => getComputedStyle(element).getPropertyValue("-webkit-text-security")),
      ).toBe("none");
    }
    for (const mountId of ["masked", "masked-class", "password"]) {
      await expect.poll(async () => origin(mountId).textContent()).toContain("This is not Livemark asking");
    }
    expect(await origin("plain").textContent()).toContain("Made by the model");
    expect(await origin("plain").textContent()).not.toContain("This is not Livemark asking");
  });

  it("renders a restored snapshot inert: nothing reaches the realm until revived", async () => {
    const snapshot: unknown = {
      nodes: [
        el("Button", { onClick: H }, "Press"),
        el("Input", { name: "a", value: "typed", onChange: H, "aria-label": "A" }),
      ],
    };
    await page.evaluate(
      (value) =>
        (window as never as { renderTest: { restore(id: string, s: unknown): Promise<void> } }).renderTest.restore(
          "inert",
          value,
        ),
      snapshot,
    );
    const root = panel("inert");
    expect(await root.getByRole("button", { name: "Press" }).isDisabled()).toBe(true);
    expect(await root.getByLabel("A").isDisabled()).toBe(true);
    expect(await root.getByLabel("A").inputValue()).toBe("typed");
    await root.getByRole("button", { name: "Press" }).click({ force: true });
    await root.getByRole("button", { name: "Revive" }).click();
    expect((await events()).map((event) => event.handler)).toEqual(["revive"]);
  });
});

describe("kit, charts, icons", () => {
  it("loads Recharts only when a chart appears", async () => {
    const fresh = await browser.newContext();
    try {
      const { page: freshPage, log } = await openPage(fresh);
      await open("plain", [el("p", { className: "p-4" }, el("StarIcon", {}), "no chart yet")], freshPage);
      await freshPage.locator("svg.lucide-star").waitFor();
      expect(log.urls.filter((url) => /charts-[\w-]+\.js/.test(url))).toEqual([]);
      await open("chart", [el("BarChart", { data: [{ y: 1 }] }, el("Bar", { dataKey: "y" }))], freshPage);
      await freshPage.locator(".recharts-bar-rectangle").first().waitFor({ timeout: 15_000 });
      expect(log.urls.filter((url) => /charts-[\w-]+\.js/.test(url))).toHaveLength(1);
      // The common icons came in their own small chunk, without all of lucide.
      expect(log.urls.filter((url) => /iconsAll-[\w-]+\.js/.test(url))).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("renders charts from rows", async () => {
    const rows = [
      { name: "Mon", value: 3 },
      { name: "Tue", value: 7 },
      { name: "Wed", value: 5 },
    ];
    await open("charts", [
      el(
        "ResponsiveContainer",
        { width: "100%", height: 220 },
        el(
          "LineChart",
          { data: rows },
          el("CartesianGrid", { strokeDasharray: "3 3" }),
          el("XAxis", { dataKey: "name" }),
          el("YAxis", {}),
          el("Tooltip", {}),
          el("Legend", {}),
          el("Line", { type: "monotone", dataKey: "value", stroke: "#3d5afe" }),
        ),
      ),
      el(
        "BarChart",
        { data: rows, height: 200 },
        el("XAxis", { dataKey: "name" }),
        el("Bar", { dataKey: "value", fill: "#1b873f", onClick: H }),
      ),
      el(
        "PieChart",
        { width: 220, height: 220 },
        el(
          "Pie",
          { data: rows, dataKey: "value", nameKey: "name", outerRadius: 80 },
          el("Cell", { fill: "#f00" }),
          el("Cell", { fill: "#0f0" }),
          el("Cell", { fill: "#00f" }),
        ),
      ),
    ]);
    const root = panel("charts");
    await root.locator(".recharts-line path.recharts-curve").first().waitFor({ timeout: 15_000 });
    expect(await root.locator(".recharts-line path.recharts-curve").first().getAttribute("d")).toMatch(/^M[\d.]+/);
    await expect.poll(() => root.locator(".recharts-bar-rectangle path").count(), { timeout: 10_000 }).toBe(3);
    await expect.poll(() => root.locator(".recharts-pie-sector path").count(), { timeout: 10_000 }).toBe(3);
    expect(await root.locator(".recharts-pie-sector path").first().getAttribute("fill")).toBe("#f00");
    await root.locator(".recharts-bar-rectangle path").nth(1).click();
    expect((await lastEvent("onClick"))!.payload).toEqual({ value: { name: "Tue", value: 7 } });
    // A new row streams in: the chart follows.
    const chartId = await page.evaluate(() => {
      const store = (
        window as never as {
          renderTest: { registry: { get(id: string): { getNode(id: number): { children: number[] } } } };
        }
      ).renderTest.registry.get("charts");
      return store.getNode(0).children[1];
    });
    await receive(page, {
      type: "mount",
      kind: "ops",
      mountId: "charts",
      ops: [{ op: "props", id: chartId, props: { data: [...rows, { name: "Thu", value: 9 }], height: 200 } }],
    });
    await expect.poll(() => root.locator(".recharts-bar-rectangle path").count()).toBe(4);
  });

  it("renders icons by component name and by <Icon name>, and reports unknown icons", async () => {
    await open("icons", [
      el("StarIcon", { "data-testid": "star", className: "text-yellow-500" }),
      el("Icon", { name: "arrow-right", size: 24 }),
      el("RocketIcon", {}),
      el("NopeIcon", {}),
      el("Icon", { name: "Kangaroo" }),
    ]);
    const root = panel("icons");
    await root.locator("svg.lucide-star").waitFor();
    await root.locator("svg.lucide-arrow-right").waitFor();
    await root.locator("svg.lucide-rocket").waitFor({ timeout: 15_000 });
    expect(await root.locator("svg.lucide-arrow-right").getAttribute("width")).toBe("24");
    await expect.poll(unknownNames).toEqual(expect.arrayContaining(["NopeIcon", 'Icon name="Kangaroo"']));
    expect(await root.getByText("Unknown component <NopeIcon>").count()).toBe(1);
  });

  it("shows an inline error for an unknown component and reports it once", async () => {
    await open("unknown", [
      el("FancyWidget", { title: "x" }, "child text"),
      el("FancyWidget", {}),
      el("p", {}, "the rest renders"),
    ]);
    const root = panel("unknown");
    expect(await root.getByText("Unknown component <FancyWidget>").count()).toBe(2);
    expect(await root.getByText("the rest renders").count()).toBe(1);
    expect(await root.getByText("child text").count()).toBe(0);
    await expect.poll(unknownNames).toEqual(["FancyWidget"]);
  });

  it("reports invalid ops and keeps rendering the valid tree", async () => {
    await open("ops", [el("p", { "data-testid": "para" }, "kept")]);
    const errors = await receive(page, {
      type: "mount",
      kind: "ops",
      mountId: "ops",
      ops: [
        { op: "insert", parent: 0, child: 9999 },
        { op: "create", id: 50_000, type: "div" },
        { op: "create", id: 50_000, type: "div" },
        { op: "insert", parent: 50_000, child: 50_000 },
        { op: "text", id: 123_456, text: "x" },
        { op: "create", id: 50_001, type: "#text", text: "added" },
        { op: "insert", parent: 0, child: 50_001 },
      ],
    });
    expect(errors.map((error) => error.code)).toEqual(["unknown-node", "duplicate-node", "cycle", "unknown-node"]);
    expect(await panel("ops").getByText("kept").count()).toBe(1);
    expect(await panel("ops").getByText("added").count()).toBe(1);
    const rejected = await receive(page, { type: "mount", kind: "ops", mountId: "ops", ops: "nope" });
    expect(rejected.map((error) => error.code)).toEqual(["invalid-op"]);
    const unknownMount = await receive(page, { type: "mount", kind: "ops", mountId: "ghost", ops: [] });
    expect(unknownMount.map((error) => error.code)).toEqual(["unknown-mount"]);
  });
});

describe("under a strict CSP", () => {
  it("styles mounts without inline <style> (constructed style sheet) and draws charts", async () => {
    const strict = await serveStatic(pageDir, {
      headers: {
        "content-security-policy":
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'none'",
      },
    });
    try {
      const cspContext = await browser.newContext();
      const { page: cspPage } = await openPage(cspContext, `${strict.url}render-test.html`);
      const violations: string[] = [];
      cspPage.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await open(
        "csp",
        [
          el("div", { className: "p-4 rounded-xl", "data-testid": "utility" }, "styled"),
          el("Card", { "data-testid": "card" }, el("CardContent", {}, "card")),
          el(
            "BarChart",
            {
              data: [
                { x: "a", y: 1 },
                { x: "b", y: 2 },
              ],
              height: 160,
            },
            el("Bar", { dataKey: "y" }),
          ),
          el("StarIcon", {}),
        ],
        cspPage,
      );
      expect(await cspPage.getByTestId("utility").evaluate((element) => getComputedStyle(element).padding)).toBe(
        "16px",
      );
      expect(await cspPage.getByTestId("card").evaluate((element) => getComputedStyle(element).borderTopWidth)).toBe(
        "1px",
      );
      await expect.poll(() => cspPage.locator(".recharts-bar-rectangle path").count(), { timeout: 15_000 }).toBe(2);
      await cspPage.locator("svg.lucide-star").waitFor();
      expect(violations).toEqual([]);
      await cspContext.close();
    } finally {
      await strict.close();
    }
  });
});
