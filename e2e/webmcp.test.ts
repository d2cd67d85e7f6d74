/**
 * The session offered to in-browser agents (WebMCP, issue 31 §3), in
 * Chromium with the `@mcp-b/webmcp-polyfill` (a dev dependency, never in
 * the app's bundle) providing `document.modelContext` through an init
 * script. The test plays the browser's agent with the API's own discovery
 * and call surface (`getTools`, `executeTool`).
 */
import { createRequire } from "node:module";
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { openReadyApp } from "./harness";
import { appTest, FENCE, statusText } from "./fixture";

const POLYFILL = createRequire(import.meta.url).resolve("@mcp-b/webmcp-polyfill/iife");
const SWITCH = "Let agents in this browser use this session";

const test = appTest({ open: false });

async function openWithWebMcp(page: Page, url: string): Promise<void> {
  await page.addInitScript({ path: POLYFILL });
  await openReadyApp(page, url);
}

interface ListedTool {
  name: string;
  annotations?: { readOnlyHint: boolean; untrustedContentHint: boolean };
}

/** What an agent in this browser discovers on the page. */
function listTools(page: Page): Promise<ListedTool[]> {
  return page.evaluate(async () => {
    const context = (document as unknown as { modelContext: { getTools(): Promise<ListedTool[]> } }).modelContext;
    return (await context.getTools()).map(({ name, annotations }) => ({
      name,
      ...(annotations ? { annotations } : {}),
    }));
  });
}

/** The agent calls a tool; the call stays open (a run waits for the person) until `callResult`. */
async function startCall(page: Page, name: string, input: unknown): Promise<void> {
  await page.evaluate(
    ({ name, input }) => {
      const context = (
        document as unknown as {
          modelContext: {
            getTools(): Promise<{ name: string }[]>;
            executeTool(tool: unknown, input: string): Promise<string>;
          };
        }
      ).modelContext;
      const holder = window as unknown as { __call?: Promise<{ ok?: unknown; error?: string }> };
      holder.__call = (async () => {
        const tool = (await context.getTools()).find((item) => item.name === name);
        try {
          return { ok: JSON.parse(await context.executeTool(tool, JSON.stringify(input))) as unknown };
        } catch (error) {
          return { error: error instanceof Error ? error.message : String(error) };
        }
      })();
    },
    { name, input },
  );
}

function callResult(page: Page): Promise<{ ok?: unknown; error?: string }> {
  return page.evaluate(() => (window as unknown as { __call: Promise<{ ok?: unknown; error?: string }> }).__call);
}

async function call(page: Page, name: string, input: unknown) {
  await startCall(page, name, input);
  return callResult(page);
}

async function setSwitch(page: Page, on: boolean): Promise<void> {
  await page.getByRole("button", { name: "Session settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Session settings" });
  const box = dialog.getByRole("checkbox", { name: SWITCH });
  await box.waitFor();
  if ((await box.isChecked()) !== on) await box.click();
  await expect.poll(() => box.isChecked()).toBe(on);
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });
}

const names = async (page: Page) => (await listTools(page)).map((tool) => tool.name).sort();

describe("WebMCP: the session offered to agents in this browser", () => {
  test("off by default: nothing is registered; on: the three tools with honest annotations; off again: unregistered", async ({
    page,
    app,
  }) => {
    await openWithWebMcp(page, app.url);
    await page.getByRole("button", { name: "Session settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Session settings" });
    await expect(dialog.getByRole("checkbox", { name: SWITCH }).isChecked()).resolves.toBe(false);
    // The page saw the API (the section says so), and registered nothing.
    await dialog.getByText("This browser offers WebMCP").waitFor();
    expect(await listTools(page)).toEqual([]);
    await page.keyboard.press("Escape");

    await setSwitch(page, true);
    await expect.poll(() => names(page)).toEqual(["livemark_read_session", "livemark_report", "livemark_run"]);
    const byName = Object.fromEntries((await listTools(page)).map((tool) => [tool.name, tool.annotations]));
    expect(byName.livemark_read_session).toEqual({ readOnlyHint: true, untrustedContentHint: true });
    expect(byName.livemark_run).toEqual({ readOnlyHint: false, untrustedContentHint: true });
    expect(byName.livemark_report).toEqual({ readOnlyHint: false, untrustedContentHint: false });

    // The realm's frame offers none of them (the page registers only from its own document).
    const sandbox = page.frames().find((frame) => frame.url().includes("sandbox.html"));
    expect(sandbox).toBeDefined();
    const inSandbox = await sandbox!.evaluate(async () => {
      const context = (document as unknown as { modelContext?: { getTools(): Promise<{ name: string }[]> } })
        .modelContext;
      try {
        return (await context?.getTools())?.map((tool) => tool.name) ?? [];
      } catch {
        return [];
      }
    });
    expect(inSandbox).toEqual([]);

    // Saved with the session: a reload offers them again.
    await page.reload();
    await openReadyApp(page, page.url());
    await expect.poll(() => names(page)).toHaveLength(3);

    await setSwitch(page, false);
    await expect.poll(() => names(page)).toEqual([]);
  });

  test("livemark_run waits for the person: Reject answers an error and nothing ran; Allow once runs it and answers its output; read_session returns the session", async ({
    page,
    app,
  }) => {
    await openWithWebMcp(page, app.url);
    await setSwitch(page, true);
    await expect.poll(() => names(page)).toHaveLength(3);

    await startCall(page, "livemark_run", {
      markdown: `Trying.\n\n${FENCE}ts agent.run\nconsole.log("never ran", 7 * 6)\n${FENCE}\n`,
    });
    const ask = page.getByRole("region", { name: "Run waiting for permission" });
    await ask.waitFor();
    await expect.poll(() => statusText(page)).toContain("Waiting for permission");
    await ask.getByRole("button", { name: "Reject" }).click();
    const rejected = await callResult(page);
    expect(rejected.error).toContain("rejected this run");
    await expect(ask.count()).resolves.toBe(0);
    expect(await page.getByText("never ran").count()).toBe(0);

    await startCall(page, "livemark_run", { markdown: `${FENCE}ts agent.run\nconsole.log("sum", 2 + 3)\n${FENCE}\n` });
    await ask.waitFor();
    await ask.getByRole("button", { name: "Allow once" }).click();
    const allowed = (await callResult(page)) as { ok: { content: { text: string }[]; structuredContent: unknown } };
    expect(allowed.ok.content[0].text).toContain("sum 5");
    expect(allowed.ok.structuredContent).toMatchObject({ state: "done" });

    const read = (await call(page, "livemark_read_session", {})) as {
      ok: { structuredContent: { trust: string; messages: { role: string; text: string }[] } };
    };
    expect(read.ok.structuredContent.trust).toBe("untrusted");
    // One reply: the allowed run; the rejected one never reached the session.
    const replies = read.ok.structuredContent.messages.filter((message) => message.role === "assistant");
    expect(replies).toHaveLength(1);
    expect(replies[0].text).toContain("sum");

    const report = await call(page, "livemark_report", { kind: "reply", text: "The sum is five." });
    expect(report.ok).toMatchObject({ structuredContent: { shown: true } });
    await page.getByText("The sum is five.").waitFor();
  });

  test("another session unregisters the tools (its own switch is off); a run waiting for the person is answered", async ({
    page,
    app,
  }) => {
    await openWithWebMcp(page, app.url);
    await setSwitch(page, true);
    await expect.poll(() => names(page)).toHaveLength(3);
    // A session with a message, so New session opens another one.
    await startCall(page, "livemark_report", { kind: "status", text: "Looking around." });
    await callResult(page);
    await startCall(page, "livemark_run", { markdown: `${FENCE}ts agent.run\nconsole.log(1)\n${FENCE}\n` });
    await page.getByRole("region", { name: "Run waiting for permission" }).waitFor();
    await page.getByRole("button", { name: "New session" }).first().click();
    const answered = await callResult(page);
    // Unregistering ends the open call: the API says so ("Tool unregistered"), and the page answers it "no" too.
    expect(answered.error).toMatch(/Tool unregistered|no longer offers this session/);
    await expect.poll(() => names(page)).toEqual([]);
    await expect(page.getByRole("region", { name: "Run waiting for permission" }).count()).resolves.toBe(0);
  });
});
