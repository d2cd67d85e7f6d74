/**
 * History is never thrown away (issue 33 §2), in the built app against the
 * mock LLM: Edit → Resend keeps the earlier version behind ‹ 1/2 ›, the model
 * hears only the version shown, both survive a reload; a share link opens
 * read-only and Import keeps it without leaving an empty "New session".
 */
import { expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, send, waitDone, waitSaved } from "./fixture";
import { openReadyApp } from "./harness";

const it = appTest({ configure: true, probe: true });

const log = (page: Page) => page.getByRole("log", { name: "Conversation" });
const shown = async (page: Page) => (await log(page).textContent()) ?? "";
const versions = (page: Page) => page.getByRole("group", { name: "Versions" });
/** The user-role texts of one request to the mock. */
function userTexts(body: { messages: { role: string; content: unknown }[] }): string[] {
  return body.messages
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
}

it("Edit → Resend keeps the earlier version behind ‹ 1/2 ›; switching shows its messages, the model hears only the shown one, and both survive a reload", async ({
  page,
  mock,
}) => {
  const chats = () =>
    mock.requests.filter((request) => request.method === "POST" && request.path.endsWith("/completions"));
  mock.enqueue({ chunks: ["Answer one."] });
  await send(page, "first question");
  await waitDone(page);
  mock.enqueue({ chunks: ["Answer two."] });
  await send(page, "second question");
  await waitDone(page);

  const first = page.getByRole("article", { name: "Your message" }).first();
  await first.getByRole("button", { name: "Edit" }).click();
  await page.getByText("Resending makes a new version from here").waitFor();
  await page.getByLabel("Edit message").fill("edited question");
  mock.enqueue({ chunks: ["Edited answer."] });
  await page.getByRole("button", { name: "Resend" }).click();
  await log(page).getByText("Edited answer.").waitFor({ timeout: 30_000 });
  await waitDone(page);
  // The new version is shown, numbered 2 of 2; the earlier one is out of view and out of what the model hears.
  await expect.poll(() => versions(page).textContent()).toContain("2/2");
  expect(await shown(page)).not.toMatch(/first question|second question|Answer one|Answer two/);
  expect(userTexts(chats().at(-1)!.body)).toEqual(["edited question"]);
  expect(await versions(page).getByRole("button", { name: "Next version" }).isDisabled()).toBe(true);

  // Back to version 1: everything after the branch point is that version's.
  await versions(page).getByRole("button", { name: "Previous version" }).click();
  await expect.poll(() => shown(page)).toContain("Answer two.");
  expect(await shown(page)).toMatch(/first question[\s\S]*Answer one\.[\s\S]*second question[\s\S]*Answer two\./);
  expect(await shown(page)).not.toContain("Edited answer.");
  expect(await versions(page).textContent()).toContain("1/2");
  // Nothing ran again: the realm is the current one, and the page says so.
  await versions(page).getByText("the realm keeps its current state").waitFor();

  // The next turn goes on from the version shown, and hears only it.
  mock.enqueue({ chunks: ["Answer three."] });
  await send(page, "third question");
  await log(page).getByText("Answer three.").waitFor({ timeout: 30_000 });
  await waitDone(page);
  expect(userTexts(chats().at(-1)!.body)).toEqual(["first question", "second question", "third question"]);
  expect(JSON.stringify(chats().at(-1)!.body.messages)).not.toContain("Edited answer.");

  // Saved: after a reload the version shown is still 1 of 2, and version 2 is still there.
  await waitSaved(page);
  await page.reload();
  await log(page).getByText("Answer three.").waitFor({ timeout: 30_000 });
  await expect.poll(() => versions(page).textContent()).toContain("1/2");
  expect(await shown(page)).toMatch(/first question[\s\S]*Answer two\.[\s\S]*third question[\s\S]*Answer three\./);
  await versions(page).getByRole("button", { name: "Next version" }).click();
  await expect.poll(() => shown(page)).toContain("Edited answer.");
  expect(await shown(page)).not.toMatch(/first question|Answer three/);
  expect(await versions(page).textContent()).toContain("2/2");
});

it("Regenerate twice keeps three versions of the reply (‹ 3/3 ›); the first comes back", async ({ page, mock }) => {
  mock.enqueue({ chunks: ["Reply A."] });
  await send(page, "a question");
  await waitDone(page);
  const replies = () => page.getByRole("article", { name: "Reply" });
  for (const text of ["Reply B.", "Reply C."]) {
    mock.enqueue({ chunks: [text] });
    await replies().last().getByRole("button", { name: "Regenerate", exact: true }).click();
    await log(page).getByText(text).waitFor({ timeout: 30_000 });
    await waitDone(page);
  }
  await expect.poll(() => versions(page).textContent()).toContain("3/3");
  expect(await shown(page)).not.toMatch(/Reply A|Reply B/);
  await versions(page).getByRole("button", { name: "Previous version" }).click();
  await expect.poll(() => versions(page).textContent()).toContain("2/3");
  expect(await shown(page)).toContain("Reply B.");
  await versions(page).getByRole("button", { name: "Previous version" }).click();
  await expect.poll(() => versions(page).textContent()).toContain("1/3");
  expect(await shown(page)).toContain("Reply A.");
  expect(await shown(page)).not.toMatch(/Reply B|Reply C/);
});

it("a share link opens read-only in a fresh browser; Import keeps it and leaves no empty New session", async ({
  page,
  mock,
  browser,
}) => {
  mock.enqueue({ chunks: ["Shared answer."] });
  await send(page, "Something to share");
  await waitDone(page);
  await waitSaved(page);
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const url = await page.getByLabel(/Share link/).inputValue();
  expect(url).toContain("#share=");

  const fresh = await browser.newContext();
  try {
    const other = await fresh.newPage();
    await openReadyApp(other, url);
    const preview = other.getByRole("dialog", { name: "Shared session preview" });
    await preview.waitFor({ timeout: 20_000 });
    // Readable before import: the conversation is shown, read-only (no composer to send with).
    await log(other).getByText("Shared answer.").waitFor({ timeout: 20_000 });
    expect(await shown(other)).toContain("Something to share");
    await other.getByText("A shared session, shown read-only").waitFor();
    expect(await other.getByRole("textbox", { name: "Message" }).count()).toBe(0);
    expect(await other.getByRole("button", { name: "Send" }).count()).toBe(0);
    // Nothing was written yet: no session in the list.
    const list = other.getByRole("navigation", { name: "Sessions" }).locator(".lm-session");
    expect(await list.count()).toBe(0);

    await preview.getByRole("button", { name: "Import" }).click();
    await preview.waitFor({ state: "detached", timeout: 20_000 });
    await other.getByRole("textbox", { name: "Message" }).waitFor({ timeout: 20_000 });
    await expect.poll(() => list.allTextContents()).toEqual([expect.stringContaining("Something to share")]);
    expect((await list.allTextContents()).join("\n")).not.toContain("New session");
    expect(await shown(other)).toContain("Shared answer.");
    // And a reload does not bring one either.
    await other.reload();
    await log(other).getByText("Shared answer.").waitFor({ timeout: 30_000 });
    await expect.poll(() => list.count()).toBe(1);
  } finally {
    await fresh.close();
  }
});
