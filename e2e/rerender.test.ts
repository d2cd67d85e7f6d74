/**
 * A streamed chunk re-renders what it changed (issue 34 §2): the streaming
 * reply's growing block and the status line, not the composer, the page
 * around the timeline, the person's messages or a settled reply
 * (src/ui/useAgentState.ts: each part of the page reads only its part of the
 * agent's state).
 *
 * How a render is seen in the built app: React keeps a component's hooks as
 * objects on its fiber (and the fiber's alternate), and a render makes new
 * ones; a skipped component keeps them (React only copies them between the
 * two fibers). So a component rendered between two looks iff a hook object
 * shows that neither look had before. The fiber is found from a DOM node
 * React made (its `__reactFiber$…` key), up to the nearest component with
 * hooks.
 */
import { expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, FENCE, nextPaint, send, statusText, waitDone } from "./fixture";
import { createGate } from "./mockLlm";

const it = appTest({ configure: true });

/**
 * Where to look: a DOM node the component (or one just under it) renders, as a selector, which of its
 * matches (0 the first, -1 the last) and a selector inside that one.
 */
const WATCHED = {
  composer: ["#lm-message", 0],
  sessionView: ["main.lm-main", 0],
  yourMessage: ['article[aria-label="Your message"]', 0],
  settledReply: ['article[aria-label="Reply"]', 0, ".lm-markdown"],
  streamingBlock: ['article[aria-label="Reply"]', -1, ".lm-markdown p"],
} as const;
type Watched = keyof typeof WATCHED;
type Places = Record<string, readonly [string, number, string?]>;

/** The hook objects each watched component holds now (its fiber and its alternate), kept in the page. */
function look(page: Page, watched: Places = WATCHED): Promise<void> {
  return page.evaluate((watched) => {
    const holders = ([selector, at, inner]: readonly [string, number, string?]): unknown[] | undefined => {
      const matches = document.querySelectorAll(selector);
      const match = matches[at < 0 ? matches.length + at : at];
      const element = inner ? match?.querySelector(inner) : match;
      if (!element) return undefined;
      const key = Object.keys(element).find((name) => name.startsWith("__reactFiber$"));
      type Fiber = { tag: number; memoizedState: unknown; alternate: Fiber | null; return: Fiber | null };
      let fiber = key ? ((element as unknown as Record<string, Fiber>)[key] ?? null) : null;
      // Function, forwardRef and simple memo components with at least one hook.
      while (fiber && !([0, 11, 15].includes(fiber.tag) && fiber.memoizedState)) fiber = fiber.return;
      return fiber ? [fiber.memoizedState, fiber.alternate?.memoizedState] : undefined;
    };
    const looks = ((window as unknown as { __looks?: Record<string, unknown[][]> }).__looks ??= {});
    for (const [name, place] of Object.entries(watched)) {
      const now = holders(place);
      if (!now) throw new Error(`Nothing rendered at ${place.join(" ")}`);
      (looks[name] ??= []).push(now);
    }
  }, watched);
}

/** Which watched components rendered between the first look and the last. */
function rendered<Name extends string = Watched>(page: Page): Promise<Record<Name, boolean>> {
  return page.evaluate(() => {
    const looks = (window as unknown as { __looks: Record<string, unknown[][]> }).__looks;
    return Object.fromEntries(
      Object.entries(looks).map(([name, all]) => {
        const seen = new Set(all[0]);
        return [name, all.slice(1).some((holders) => holders.some((hook) => hook !== undefined && !seen.has(hook)))];
      }),
    ) as Record<Name, boolean>;
  });
}

it("re-renders on a chunk only the streaming reply's block, not the composer, the page or a settled reply", async ({
  page,
  mock,
}) => {
  mock.enqueue({ chunks: ["The first reply, **settled** by now."] });
  await send(page, "Say something.");
  await waitDone(page);

  const gates = [createGate(), createGate(), createGate()];
  mock.enqueue({
    chunks: [
      "The second reply starts",
      { waitFor: gates[0].promise },
      " and grows",
      { waitFor: gates[1].promise },
      " and grows again",
      { waitFor: gates[2].promise },
      " to its end.",
    ],
  });
  await send(page, "Say more.");
  const reply = page.locator('article[aria-label="Reply"]').nth(1);
  await expect.poll(() => reply.textContent(), { timeout: 30_000 }).toContain("The second reply starts");
  await expect.poll(() => statusText(page)).toMatch(/^Streaming/);
  await nextPaint(page);
  await look(page);

  for (const [index, text] of ["and grows", "and grows again"].entries()) {
    gates[index].open();
    await expect.poll(() => reply.textContent(), { timeout: 30_000 }).toContain(text);
    await nextPaint(page);
    await look(page);
  }
  expect(await statusText(page)).toMatch(/^Streaming/);
  expect(await rendered(page)).toEqual({
    // What the chunks changed (and the check's own proof that it sees a render).
    streamingBlock: true,
    composer: false,
    sessionView: false,
    yourMessage: false,
    settledReply: false,
  });

  gates[2].open();
  await waitDone(page);
  await expect.poll(() => reply.textContent()).toContain("to its end.");
});

it("re-renders at a long reply's end its open group, not the groups that settled while it streamed", async ({
  page,
  mock,
}) => {
  // 60 blocks (a paragraph and a code block that runs, 30 times): groups of GROUP_BLOCKS (src/ui/replyGroups.ts).
  const parts = Array.from(
    { length: 30 },
    (_, index) => `Paragraph ${index} of the reply.\n\n${FENCE}ts agent.run\nconst value${index} = 1\n${FENCE}\n\n`,
  ).join("");
  const gate = createGate();
  mock.enqueue({ chunks: [parts, "The last paragraph", { waitFor: gate.promise }, " ends here."] });
  await send(page, "A long one, please.");
  const reply = page.locator('article[aria-label="Reply"]');
  await expect.poll(() => reply.locator(".lm-code--done").count(), { timeout: 30_000 }).toBe(30);
  await expect.poll(() => reply.textContent()).toContain("The last paragraph");
  // Highlighted (the worker answers each block in its own time): nothing is on its way to them but the reply's end.
  await expect.poll(() => reply.locator('[data-highlighted="all"]').count(), { timeout: 30_000 }).toBe(30);
  const group = 'article[aria-label="Reply"] .lm-reply-group';
  const places: Places = {
    settledGroupText: [group, 0, ".lm-markdown"],
    settledGroupCode: [group, 0, ".lm-code"],
    openGroupText: [group, -1, ".lm-markdown:last-of-type"],
  };
  await nextPaint(page);
  await look(page, places);
  gate.open();
  await waitDone(page);
  await expect.poll(() => reply.textContent()).toContain("ends here.");
  await nextPaint(page);
  await look(page, places);
  expect(await page.locator(group).count()).toBeGreaterThan(2);
  expect(await rendered<keyof typeof places>(page)).toEqual({
    // The open group's text changed (and the check's own proof that it sees a render).
    openGroupText: true,
    settledGroupText: false,
    settledGroupCode: false,
  });
});

it("follows a reply growing past the window without re-rendering the page around the timeline", async ({
  page,
  mock,
}) => {
  const paragraphs = (from: number) =>
    Array.from({ length: 12 }, (_, index) => `Paragraph ${from + index} of a reply taller than the window.\n\n`).join(
      "",
    );
  const gates = [createGate(), createGate(), createGate()];
  mock.enqueue({
    chunks: [
      paragraphs(0),
      { waitFor: gates[0].promise },
      paragraphs(12),
      { waitFor: gates[1].promise },
      paragraphs(24),
      { waitFor: gates[2].promise },
      "The end.",
    ],
  });
  await send(page, "A tall one.");
  const reply = page.locator('article[aria-label="Reply"]');
  await expect.poll(() => reply.textContent(), { timeout: 30_000 }).toContain("Paragraph 11 ");
  // One reply: the page around the timeline, and the reply's newest block.
  const places: Places = {
    composer: WATCHED.composer,
    sessionView: WATCHED.sessionView,
    yourMessage: WATCHED.yourMessage,
    streamingBlock: ['article[aria-label="Reply"]', -1, ".lm-markdown:last-of-type"],
  };
  await nextPaint(page);
  await look(page, places);
  const below = () =>
    page.evaluate(() => {
      const main = document.querySelector("main.lm-main")!;
      return main.scrollHeight - main.scrollTop - main.clientHeight;
    });
  for (const [index, last] of [23, 35].entries()) {
    gates[index].open();
    await expect.poll(() => reply.textContent(), { timeout: 30_000 }).toContain(`Paragraph ${last} `);
    // Followed: the newest paragraph is in view, the view at the bottom, no Jump to latest.
    await expect.poll(below).toBeLessThanOrEqual(2);
    await nextPaint(page);
    await look(page, places);
  }
  expect(await page.evaluate(() => document.querySelector("main.lm-main")!.scrollTop)).toBeGreaterThan(0);
  expect(await page.getByRole("button", { name: "Jump to latest" }).count()).toBe(0);
  expect(await rendered<keyof typeof places>(page)).toEqual({
    streamingBlock: true,
    composer: false,
    // The follow's own state (the reader at the bottom, or catching up with it) lives in Jump to latest.
    sessionView: false,
    yourMessage: false,
  });
  gates[2].open();
  await waitDone(page);
});
