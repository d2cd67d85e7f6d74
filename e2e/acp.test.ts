/**
 * Drive the person's ACP agent (issue 31 §2): the bundled bridge
 * (dist/livemark-bridge.mjs) as a child process in ACP mode launches the
 * scripted ACP agent (e2e/fixtures/acpAgent.mjs, the ACP SDK's own agent
 * side) for the page; the real app in Chromium is its ACP client.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, expect } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { ROOT_DIR, openReadyApp } from "./harness";
import { appTest, send, statusText } from "./fixture";

interface Bridge {
  port: number;
  process: ChildProcess;
  stderr: string[];
}

const AGENT = `"${process.execPath}" "${join(ROOT_DIR, "e2e/fixtures/acpAgent.mjs")}"`;

async function startBridge(origin: string): Promise<Bridge> {
  const child = spawn(
    process.execPath,
    [join(ROOT_DIR, "dist/livemark-bridge.mjs"), "--port", "0", "--allow-origin", origin, "--acp", AGENT],
    { cwd: ROOT_DIR, stdio: ["ignore", "ignore", "pipe"] },
  );
  const stderr: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bridge did not start:\n${stderr.join("")}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString());
      const match = /ACP mode: each page at ws:\/\/127\.0\.0\.1:(\d+)\/acp/.exec(stderr.join(""));
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the bridge exited with ${code}:\n${stderr.join("")}`));
    });
  });
  return { port, process: child, stderr };
}

let bridge: Bridge;
let context: BrowserContext;
let page: Page;
let origin: string;
let url: string;

const it = appTest();
it.beforeAll(async ({ browser, app }) => {
  origin = app.origin;
  url = app.url;
  bridge = await startBridge(app.origin);
  context = await browser.newContext();
});
afterAll(async () => {
  await context?.close();
  if (bridge && bridge.process.exitCode === null) {
    const exited = new Promise((resolve) => bridge.process.once("exit", resolve));
    bridge.process.kill("SIGTERM");
    await exited;
  }
});
beforeEach(async () => {
  page = await context.newPage();
  await openReadyApp(page, url);
});
afterEach(async () => {
  await page?.close();
});

const dialog = () => page.getByRole("dialog", { name: "Invite agent" });

/**
 * Stop → one more "stopped (cancelled)" notice. Counted, not just looked for: each test opens a new page in the
 * same profile, which reopens the last session, so an earlier test's notice may already be there.
 */
async function stopAndSeeCancelled() {
  const stopped = page.getByText("scripted-acp-agent stopped (cancelled).");
  const before = await stopped.count();
  await page.getByRole("button", { name: "Stop" }).click();
  await expect.poll(() => stopped.count(), { timeout: 15_000 }).toBe(before + 1);
}

/** Invite agent → Connect an ACP agent → the test's bridge → Connect; waits until the agent is connected. */
async function connectAcp() {
  await page.getByRole("button", { name: "Invite agent" }).click();
  await dialog().waitFor({ timeout: 30_000 });
  const section = dialog().getByRole("region", { name: "Connect an ACP agent" });
  expect(await section.getByLabel("Command to start the bridge in ACP mode").inputValue()).toBe(
    'node livemark-bridge.mjs --acp "npx @zed-industries/claude-code-acp"',
  );
  await section.getByLabel("ACP address").fill(`ws://127.0.0.1:${bridge.port}/acp`);
  await section.getByRole("button", { name: "Connect" }).click();
  await section.getByText("agent connected (scripted-acp-agent)").waitFor({ timeout: 30_000 });
  await dialog().getByRole("button", { name: "Close" }).click();
  await dialog().waitFor({ state: "hidden" });
}

it("the agent's streamed fence runs and mounts; its plan and tool call show; its permission request is answered inline", async () => {
  expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:/);
  await connectAcp();
  // The header says which agent answers, with its model and mode.
  await page.getByText("scripted-acp-agent · Scripted 1 · Code").waitFor({ timeout: 15_000 });

  await send(page, "build a counter");
  const mount = page.getByLabel("Mounted UI");
  await mount.getByText("ACP clicks: 0").waitFor({ timeout: 30_000 });
  await mount.getByRole("button", { name: "Add one" }).click();
  await mount.getByText("ACP clicks: 1").waitFor({ timeout: 15_000 });
  const reply = page.getByRole("article", { name: "Reply" }).filter({ hasText: "Here is your counter." });
  expect(await reply.getByText(/From the agent · scripted-acp-agent/).count()).toBe(1);

  const plan = page.getByRole("region", { name: "Agent plan" });
  await plan.getByRole("checkbox", { name: "Write the counter (in progress)" }).waitFor({ timeout: 15_000 });
  expect(await plan.getByRole("checkbox", { name: "Check it renders (to do)" }).isChecked()).toBe(false);
  const tool = page.getByLabel("Agent tool call");
  await expect.poll(() => tool.textContent(), { timeout: 15_000 }).toMatch(/Read the project notes\s*completed/);

  const ask = page.getByRole("region", { name: "Agent permission request" });
  await ask.getByText("Write notes.md").waitFor({ timeout: 15_000 });
  expect(await ask.getByRole("button").allTextContents()).toEqual(["Allow once", "Always allow", "Reject"]);
  await ask.getByRole("button", { name: "Allow once" }).click();
  await ask.getByText("You chose: Allow once").waitFor({ timeout: 15_000 });
  await page.getByText("Permission answer: once.").waitFor({ timeout: 15_000 });
  // The plan was updated in place: both done.
  await expect
    .poll(() => plan.getByRole("checkbox", { name: "Check it renders (done)" }).isChecked(), { timeout: 15_000 })
    .toBe(true);
  expect(await page.getByRole("region", { name: "Agent plan" }).count()).toBe(1);
});

it("Stop cancels the agent's turn (session/cancel)", async () => {
  await connectAcp();
  await send(page, "wait for me");
  await page.getByText("Working on it until you stop me.").waitFor({ timeout: 30_000 });
  await stopAndSeeCancelled();
  await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Stopped/);
});

it("while the agent asks permission the status line says so and Stop cancels the turn", async () => {
  await connectAcp();
  await send(page, "ask me");
  const ask = page.getByRole("region", { name: "Agent permission request" });
  await ask.getByText("Delete build/").waitFor({ timeout: 30_000 });
  await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Waiting for permission/);
  await stopAndSeeCancelled();
  await ask.getByText("Cancelled: the agent no longer waits for an answer.").waitFor({ timeout: 15_000 });
  await page.getByRole("button", { name: "Stop" }).waitFor({ state: "hidden", timeout: 15_000 });
});

it("after a reload the tab reconnects on its own and takes up the agent's session (session/load)", async () => {
  await connectAcp();
  await send(page, "hello");
  const said = page.getByText(/You said \(in s\d+-\d+\): hello$/);
  await said.waitFor({ timeout: 30_000 });
  const sessionId = /\(in (s\d+-\d+)\)/.exec((await said.textContent()) ?? "")![1];
  await page.reload();
  // No Invite agent, no Connect: the tab reconnects, a new agent process loads the session it had.
  await page.getByText("scripted-acp-agent took up its session again.").waitFor({ timeout: 30_000 });
  await page.getByText("scripted-acp-agent · Scripted 1 · Code").waitFor({ timeout: 15_000 });
  await send(page, "hello again");
  // A new session would carry the new process's id; session/load kept the old one.
  await page.getByText(`You said (in ${sessionId}): hello again`).waitFor({ timeout: 30_000 });
});
