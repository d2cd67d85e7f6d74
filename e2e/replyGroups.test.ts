/**
 * A long reply's blocks drawn in groups (issue 34 §2, src/ui/replyGroups.ts):
 * while it streams, a frame re-renders and lays out only the open group, so
 * the settled groups keep their DOM nodes, and the reply has a few
 * `content-visibility: auto` boxes (one per settled group) rather than one
 * per block. Code blocks keep their numbers across groups.
 */
import { expect } from "vitest";
import { appTest, FENCE, send } from "./fixture";
import { createGate } from "./mockLlm";
import { GROUP_BLOCKS } from "../src/ui/replyGroups";

const it = appTest({ configure: true });

/** Two blocks a part: a paragraph and a code block that runs. */
const parts = (from: number, to: number) =>
  Array.from(
    { length: to - from },
    (_, offset) =>
      `Paragraph ${from + offset} of the reply.\n\n${FENCE}ts agent.run\nconst value${from + offset} = 1\n${FENCE}\n\n`,
  ).join("");

it("keeps a streaming reply's settled groups as they are, in one box each, numbering code blocks across them", async ({
  page,
  mock,
}) => {
  const gate = createGate();
  mock.enqueue({
    chunks: [
      parts(0, 30),
      { waitFor: gate.promise },
      parts(30, 60),
      `${FENCE}ts agent.run\nthrow new Error("boom")\n${FENCE}\n\nThe end.`,
    ],
  });
  mock.enqueue({ chunks: ["Understood."] });
  await send(page, "A long one, please.");
  const reply = page.locator('article[aria-label="Reply"]').first();
  // 60 blocks so far: two settled groups and the open one.
  await expect.poll(() => reply.locator(".lm-code").count(), { timeout: 30_000 }).toBe(30);
  await expect.poll(() => reply.locator(".lm-reply-group").count()).toBe(Math.ceil(60 / GROUP_BLOCKS));
  await expect.poll(() => reply.locator(".lm-markdown p").count()).toBe(30);
  await page.evaluate(() => {
    const groups = document.querySelectorAll('article[aria-label="Reply"] .lm-reply-group');
    Object.assign(window, { __settled: groups[0], __paragraph: groups[0].querySelector("p"), __open: groups[2] });
  });

  gate.open();
  const error = reply.locator(".lm-code__error");
  await expect.poll(() => error.textContent(), { timeout: 30_000 }).toContain("code block 61");
  await expect.poll(() => reply.getByText("The end.").count()).toBe(1);
  const after = await page.evaluate(() => {
    const article = document.querySelector('article[aria-label="Reply"]')!;
    const groups = article.querySelectorAll(".lm-reply-group");
    const marked = window as unknown as Record<"__settled" | "__paragraph" | "__open", Element>;
    return {
      // The same nodes, never drawn again: the group settled before the pause, and the group that was open then.
      settledKept: marked.__settled === groups[0] && marked.__paragraph.isConnected,
      openKept: marked.__open === groups[2],
      groups: groups.length,
      blocks: article.querySelectorAll(".lm-code, .lm-markdown").length,
      boxed: [...article.querySelectorAll("*")].filter(
        (element) => getComputedStyle(element).contentVisibility === "auto",
      ).length,
      openBoxed: getComputedStyle(groups[groups.length - 1]).contentVisibility,
      paragraphs: [...article.querySelectorAll(".lm-markdown p")].map((paragraph) => paragraph.textContent),
    };
  });
  expect(after.settledKept).toBe(true);
  expect(after.openKept).toBe(true);
  // 61 paragraphs (the last is "The end.") and 61 code blocks.
  expect(after.blocks).toBe(122);
  expect(after.paragraphs.slice(0, 60)).toEqual(
    Array.from({ length: 60 }, (_, index) => `Paragraph ${index} of the reply.`),
  );
  expect(after.groups).toBe(Math.ceil(122 / GROUP_BLOCKS));
  // One box per settled group, none per block; the open group is a plain box.
  expect(after.boxed).toBe(after.groups - 1);
  expect(after.openBoxed).not.toBe("auto");
});
