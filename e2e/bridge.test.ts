/**
 * Bring your own agent (DESIGN.md §4b, issue 12): the real bridge as a child
 * process (`tsx bridge/main.ts`), the real app in Chromium, and an MCP
 * client from the SDK playing the person's agent over Streamable HTTP.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { afterAll, afterEach, beforeEach, describe, expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import NodeWebSocket from "ws";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ROOT_DIR, answerAsk, openReadyApp, serveStatic, type TestServer } from "./harness";
import { appTest, FENCE, send, statusText } from "./fixture";
import { startInternet } from "./internet";

interface Bridge {
  port: number;
  process: ChildProcess;
  stderr: string[];
}

/** Start `npm run bridge`'s program on a free port; resolves once it listens. */
async function startBridgeProcess(
  args: string[],
  program = [join(ROOT_DIR, "node_modules/tsx/dist/cli.mjs"), join(ROOT_DIR, "bridge/main.ts")],
  cwd = ROOT_DIR,
): Promise<Bridge> {
  const child = spawn(process.execPath, [...program, "--port", "0", ...args], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stderr: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bridge did not start:\n${stderr.join("")}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString());
      const match = /MCP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr.join(""));
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

async function stopBridgeProcess(bridge: Bridge | undefined): Promise<number | null> {
  if (!bridge || bridge.process.exitCode !== null) return bridge?.process.exitCode ?? null;
  const exited = new Promise<number | null>((resolve) => bridge.process.once("exit", (code) => resolve(code)));
  bridge.process.kill("SIGTERM");
  const timer = setTimeout(() => bridge.process.kill("SIGKILL"), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

interface ToolResult {
  text: string;
  isError?: boolean;
  structured: Record<string, any>;
}

/** The person's agent: an SDK MCP client over Streamable HTTP. */
async function connectAgent(port: number, name = "test-agent") {
  const client = new Client({ name, version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
  await client.connect(transport);
  const call = async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })) as {
      content: { type: string; text: string }[];
      structuredContent?: Record<string, any>;
      isError?: boolean;
    };
    return {
      text: result.content.map((part) => part.text).join("\n"),
      isError: result.isError,
      structured: result.structuredContent ?? {},
    };
  };
  /** Waits until a command comes (the bridge caps one wait at 50 s; a loaded machine may need more than one). */
  const nextCommand = async (cursor: number): Promise<ToolResult> => {
    for (;;) {
      const result = await call("livemark_wait_for_command", { cursor, timeoutS: 20 });
      if (result.isError || !result.structured.timeout) return result;
    }
  };
  return { client, transport, call, nextCommand, close: () => client.close() };
}

let browser: Browser;
let app: TestServer;
let bridge: Bridge;
let context: BrowserContext;
let page: Page;
const agents: { close(): Promise<void> }[] = [];

// The fixture's browser and app, once for the file; each test opens its own context (with clipboard rights).
const it = appTest();
it.beforeAll(async ({ browser: launched, app: served }) => {
  browser = launched;
  app = served;
  bridge = await startBridgeProcess(["--allow-origin", app.origin]);
});
afterAll(async () => {
  await stopBridgeProcess(bridge);
});
beforeEach(async () => {
  context = await browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.origin });
  page = await context.newPage();
  await openReadyApp(page, app.url);
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close().catch(() => undefined)));
  await context?.close();
});

const dialog = () => page.getByRole("dialog", { name: "Invite agent" });

/** The rights a new channel starts with. */
const rights = { "Read the session": true, "Run code": true, "Confirm each run": false };

/** Invite agent → point it at the test's bridge → choose rights → Issue code → the code it shows. */
async function invite(port = bridge.port, choose: Partial<Record<keyof typeof rights, boolean>> = {}): Promise<string> {
  await page.getByRole("button", { name: "Invite agent" }).click();
  await dialog().waitFor({ timeout: 30_000 });
  const address = dialog().getByLabel("Bridge address");
  expect(await address.inputValue()).toBe("ws://127.0.0.1:4737/page");
  await address.fill(`ws://127.0.0.1:${port}/page`);
  await address.press("Enter");
  // The rights come first: no code until the person issues one.
  expect(await dialog().getByLabel("Channel code").inputValue()).toBe("");
  for (const [right, on] of Object.entries(rights))
    expect(await dialog().getByRole("checkbox", { name: right }).isChecked(), right).toBe(on);
  for (const [right, on] of Object.entries(choose))
    await dialog().getByRole("checkbox", { name: right }).setChecked(on);
  await dialog().getByRole("button", { name: "Issue code" }).click();
  await dialog().getByText("waiting for the agent").waitFor({ timeout: 30_000 });
  const code = await dialog().getByLabel("Channel code").inputValue();
  expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  expect(await dialog().getByLabel("Channel code").getAttribute("readonly")).not.toBeNull();
  expect(await dialog().getByLabel("Prompt for your agent").inputValue()).toContain(code);
  return code;
}

async function closeDialog() {
  await dialog().getByRole("button", { name: "Close" }).click();
  await dialog().waitFor({ state: "hidden" });
}

async function joinedAgent(code: string, name?: string, port = bridge.port) {
  const agent = await connectAgent(port, name);
  agents.push(agent);
  const joined = await agent.call("livemark_join", { code });
  expect(joined.isError).toBeFalsy();
  return { ...agent, cursor: joined.structured.cursor as number, joined };
}

/** The code the dialog shows once `spent` admitted its agent. */
async function nextCode(spent: string): Promise<string> {
  await expect.poll(() => dialog().getByLabel("Channel code").inputValue(), { timeout: 15_000 }).not.toBe(spent);
  return dialog().getByLabel("Channel code").inputValue();
}

/** A further agent: joins with the current code and waits for the person's Admit (pressed in the open dialog). */
async function admittedAgent(code: string, name: string) {
  const agent = await connectAgent(bridge.port, name);
  agents.push(agent);
  const joining = agent.call("livemark_join", { code });
  await dialog().getByRole("group", { name: "Agents asking to join" }).getByText(name).waitFor({ timeout: 15_000 });
  await dialog().getByRole("button", { name: "Admit" }).click();
  const joined = await joining;
  expect(joined.isError).toBeFalsy();
  return { ...agent, cursor: joined.structured.cursor as number, joined };
}

describe("bring your own agent", () => {
  it("join → command → run mounts a UI and its output comes back → reply with its summary; selection goes as untrusted context; a question is answered inline; End channel closes waits", async () => {
    const code = await invite();
    // The copy buttons copy what the fields show.
    await dialog().getByRole("button", { name: "Copy code" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);

    const agent = await joinedAgent(code);
    expect(agent.joined.structured).toMatchObject({ title: expect.any(String), mounts: [], cursor: 0 });
    await dialog().getByText("agent joined").waitFor({ timeout: 15_000 });
    await closeDialog();

    // The composer now sends to the agent.
    const firstWait = agent.nextCommand(agent.cursor);
    await send(page, "Build me a counter");
    const first = await firstWait;
    expect(first.structured.command).toMatchObject({ seq: 1, kind: "message", instruction: "Build me a counter" });
    // No selection; the session's title goes along as untrusted context.
    expect(first.structured.command.context.selection).toBeUndefined();
    expect(first.structured.command.context).toMatchObject({ trust: "untrusted", sessionTitle: expect.any(String) });
    const commandId = first.structured.command.commandId as string;
    await page
      .getByRole("article", { name: "Your message" })
      .getByText(/To the agent · received by test-agent/)
      .waitFor();

    await agent.call("livemark_report", { commandId, kind: "status", text: "Drawing a counter" });
    await page.getByLabel("Agent status").getByText("Drawing a counter").waitFor({ timeout: 15_000 });

    const ran = await agent.call("livemark_run", {
      commandId,
      markdown:
        `Here is your counter.\n\n${FENCE}tsx agent.run\n` +
        "const clicks = new Data({ n: 0 })\n" +
        'mount({ title: "Counter", ui: ({ data }) => <div><p>Clicks: {data.n}</p><Button onClick={() => { data.n += 1 }}>Add one</Button></div>, data: clicks })\n' +
        'console.log("counter ready", 6 * 7)\n' +
        `${FENCE}\n`,
    });
    expect(ran.isError).toBeFalsy();
    expect(ran.structured.state).toBe("done");
    // Exactly what a model's next turn would carry: the runtime-output message with the console line.
    expect(ran.structured.feedback).toMatch(/^\[runtime output\]/);
    expect(ran.structured.feedback).toContain("counter ready 42");
    expect(ran.structured.mounts).toEqual([expect.objectContaining({ title: "Counter" })]);
    // It is an ordinary reply in the timeline, with its mount.
    const mount = page.getByLabel("Mounted UI");
    await mount.getByText("Clicks: 0").waitFor({ timeout: 30_000 });
    await mount.getByRole("button", { name: "Add one" }).click();
    await mount.getByText("Clicks: 1").waitFor({ timeout: 15_000 });
    const agentRun = page.getByRole("article", { name: "Reply" }).filter({ hasText: "Here is your counter." });
    expect(await agentRun.getByText(/From the agent · test-agent/).count()).toBe(1);
    expect(await page.getByRole("group", { name: "Runtime output sent to the agent" }).count()).toBeGreaterThan(0);

    await agent.call("livemark_report", {
      commandId,
      kind: "reply",
      text: "Your counter is ready.",
      summary: { status: "done", changed: { mounts: ["Counter"] }, checks: ["logged counter ready"] },
    });
    const reply = page.getByRole("article", { name: "Agent reply" });
    await reply.getByText("Your counter is ready.").waitFor({ timeout: 15_000 });
    const summary = reply.getByRole("region", { name: "Reply summary" });
    expect(await summary.textContent()).toMatch(/Status:\s*Done[\s\S]*mounts: Counter[\s\S]*logged counter ready/);

    // Session content for context: messages and mount snapshots, marked untrusted.
    const read = await agent.call("livemark_read_session", {});
    expect(read.text).toMatch(/^\[untrusted application content\]/);
    expect(read.structured.messages).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: "user", text: "Build me a counter" })]),
    );
    expect(read.structured.mounts).toEqual([
      expect.objectContaining({ title: "Counter", snapshot: expect.stringContaining("Clicks: ") }),
    ]);

    // Select the mount (its text, not its button): it goes along as untrusted context.
    await mount.getByText("Clicks: 1").click();
    await page.getByText(/Context: mount “Counter”/).waitFor();
    const secondWait = agent.nextCommand(1);
    await send(page, "Make the button red");
    const second = await secondWait;
    expect(second.structured.command).toMatchObject({
      seq: 2,
      instruction: "Make the button red",
      context: { trust: "untrusted", selection: { kind: "mount", label: "mount “Counter”" } },
    });
    expect(second.structured.command.context.selection.content).toContain("Clicks: ");
    expect(second.text).toMatch(
      /\[untrusted application content\][\s\S]*Clicks: [\s\S]*\[end of untrusted application content\]/,
    );
    // The instruction part holds the person's words only.
    expect(second.text.split("[untrusted application content]")[0]).not.toContain("Clicks");

    // A question, answered inline: the answer is the agent's next command.
    const secondId = second.structured.command.commandId as string;
    await agent.call("livemark_report", {
      commandId: secondId,
      kind: "question",
      text: "Which red: crimson or scarlet?",
    });
    const question = page.getByRole("article", { name: "Agent question" });
    await question.getByRole("textbox", { name: "Your answer" }).fill("Crimson");
    const answerWait = agent.nextCommand(2);
    await question.getByRole("button", { name: "Answer" }).click();
    const answer = await answerWait;
    expect(answer.structured.command).toMatchObject({
      seq: 3,
      kind: "answer",
      answerTo: { commandId: secondId, question: "Which red: crimson or scarlet?" },
    });
    expect(answer.structured.command.instruction).toContain("Crimson");
    await question.getByText(/You answered/).waitFor();

    // A form the code awaits: the person's submission comes back in the run's feedback.
    const answerId = answer.structured.command.commandId as string;
    const formRun = agent.call("livemark_run", {
      commandId: answerId,
      markdown:
        `${FENCE}tsx agent.run\n` +
        'const form = mount({ title: "Shade", outputSchema: z.object({ shade: z.string().min(1) }), ui: () => <form><Label htmlFor="shade">Shade</Label><Input id="shade" name="shade" /><Button type="submit">Use it</Button></form> })\n' +
        "const chosen = await form.result\n" +
        'console.log("shade", chosen.shade)\n' +
        `${FENCE}\n`,
    });
    await expect.poll(() => page.getByLabel("Mounted UI").count(), { timeout: 30_000 }).toBe(2);
    const form = page.getByLabel("Mounted UI").filter({ has: page.getByRole("button", { name: "Use it" }) });
    await form.getByRole("textbox", { name: "Shade" }).fill("crimson");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Waiting for input/);
    await form.getByRole("button", { name: "Use it" }).click();
    expect((await formRun).structured.feedback).toContain("shade crimson");

    await agent.call("livemark_report", { commandId: answerId, kind: "error", text: "Could not save the shade." });
    expect(await page.getByLabel("Agent error").textContent()).toContain("Could not save the shade.");
    // An error finishes the command: nothing more runs under it.
    expect((await agent.call("livemark_run", { commandId: answerId, markdown: "x" })).isError).toBe(true);

    // End channel: the next wait fails with "channel closed", the code stops working, the timeline says so.
    await page.getByRole("button", { name: "Invite agent" }).click();
    await dialog().getByRole("button", { name: "End channel" }).click();
    await dialog().getByText("channel ended").waitFor();
    const after = await agent.call("livemark_wait_for_command", { cursor: 3, timeoutS: 5 });
    expect(after.isError).toBe(true);
    expect(after.text).toBe("channel closed");
    expect((await agent.call("livemark_join", { code })).isError).toBe(true);
    await closeDialog();
    await page.getByText("Channel ended: the agent can no longer act in this session.").waitFor();
    // The composer went back to the model.
    expect(await page.getByText("Send to the agent").count()).toBe(0);
  });

  it("two agents: exactly one claims a command", async () => {
    const code = await invite();
    const a = await joinedAgent(code, "agent-a");
    const b = await admittedAgent(await nextCode(code), "agent-b");
    await dialog()
      .getByText(/agent joined \(2 agents\)/)
      .waitFor({ timeout: 15_000 });
    await closeDialog();
    const waits = [
      a.call("livemark_wait_for_command", { cursor: 0, timeoutS: 10 }),
      b.call("livemark_wait_for_command", { cursor: 0, timeoutS: 10 }),
    ];
    await send(page, "Only one of you");
    const results = await Promise.all(waits);
    const winners = results.filter((result) => result.structured.command);
    expect(winners).toHaveLength(1);
    const loser = results[0] === winners[0] ? b : a;
    const commandId = winners[0].structured.command.commandId;
    const stolen = await loser.call("livemark_run", { commandId, markdown: "hello" });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toMatch(/not yours/);
    // The loser waiting again from its cursor does not get it either.
    expect((await loser.call("livemark_wait_for_command", { cursor: 0, timeoutS: 1 })).structured.timeout).toBe(true);
  });

  it("a channel code admits one agent: a reused code is refused, the code rotates, and a further agent needs Admit in the page (Refuse tells it so)", async () => {
    const code = await invite();
    const first = await joinedAgent(code, "first-agent");
    const next = await nextCode(code);
    expect(next).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(await dialog().getByLabel("Prompt for your agent").inputValue()).toContain(next);

    // The attack: a second agent reuses the first agent's code to race it for the person's commands.
    const intruder = await connectAgent(bridge.port, "intruder");
    agents.push(intruder);
    const reused = await intruder.call("livemark_join", { code });
    expect(reused.isError).toBe(true);
    expect(reused.text).toMatch(/used already/);

    // With the current code it is held until the person answers, and takes no commands meanwhile.
    const joining = intruder.call("livemark_join", { code: next });
    const asking = dialog().getByRole("group", { name: "Agents asking to join" });
    await asking.getByText("intruder").waitFor({ timeout: 15_000 });
    expect((await intruder.call("livemark_wait_for_command", { cursor: 0, timeoutS: 1 })).text).toMatch(/Not joined/);
    await closeDialog();
    // With the dialog closed the ask waits above the message box.
    const outside = page.getByRole("group", { name: "Agents asking to join" });
    await outside.getByText("intruder").waitFor();
    const wait = first.nextCommand(0);
    await send(page, "for the first agent only");
    expect((await wait).structured.command.instruction).toBe("for the first agent only");
    await outside.getByRole("button", { name: "Refuse" }).click();
    const refused = await joining;
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/refused this agent/);
    await outside.waitFor({ state: "detached" });
    await page.getByText(/You refused the agent intruder/).waitFor();
  });

  it("reconnect with a cursor: nothing lost, nothing repeated", async () => {
    const code = await invite();
    await closeDialog();
    const first = await joinedAgent(code, "agent");
    const wait = first.nextCommand(0);
    await send(page, "one");
    const one = await wait;
    await first.call("livemark_report", {
      commandId: one.structured.command.commandId,
      kind: "reply",
      text: "did one",
      summary: { status: "done" },
    });
    // The agent goes away (its session ends) while the person sends two more.
    await first.transport.terminateSession();
    await first.close();
    await send(page, "two");
    await page.getByRole("article", { name: "Your message" }).filter({ hasText: "two" }).waitFor();
    await send(page, "three");
    await page.getByRole("article", { name: "Your message" }).filter({ hasText: "three" }).waitFor();

    // The code admitted the first agent; coming back takes the current code and the person's Admit.
    await page.getByRole("button", { name: "Invite agent" }).click();
    const again = await admittedAgent(await nextCode(code), "agent");
    await closeDialog();
    const seen: string[] = [];
    let cursor = one.structured.cursor as number;
    for (;;) {
      const result = await again.call("livemark_wait_for_command", { cursor, timeoutS: 2 });
      if (!result.structured.command) break;
      seen.push(result.structured.command.instruction);
      cursor = result.structured.cursor;
    }
    expect(seen).toEqual(["two", "three"]);

    // The person switches back to the session's model: the message goes there, not to the agent.
    await page.getByRole("checkbox", { name: /Send to the agent/ }).uncheck();
    await send(page, "Show me primes");
    await expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/^(Done|Error)/);
    expect(await page.getByRole("article", { name: "Reply" }).count()).toBeGreaterThan(0);
    expect(await page.getByText(/From the agent/).count()).toBe(0);
    expect((await again.call("livemark_wait_for_command", { cursor, timeoutS: 1 })).structured.timeout).toBe(true);
  });

  it("New session keeps the channel: the agent stays joined, the next command names the new session and says the person switched, reads read it, and a reply for the earlier session's command shows there", async () => {
    const code = await invite();
    await closeDialog();
    const agent = await joinedAgent(code);
    const firstWait = agent.nextCommand(0);
    await send(page, "first, in the first session");
    const first = (await firstWait).structured;
    const firstSession = first.command.sessionId as string;
    const next = agent.nextCommand(first.cursor);
    await page.getByRole("button", { name: "New session" }).first().click();
    await page.getByText("Your invited agent stays with you in this session").waitFor({ timeout: 15_000 });
    // Still joined: the composer sends to the agent.
    await page.getByRole("checkbox", { name: /Send to the agent/ }).waitFor();
    await send(page, "second, in the new session");
    const second = (await next).structured;
    expect(second.command.instruction).toBe("second, in the new session");
    expect(second.command.sessionId).not.toBe(firstSession);
    expect(second.command.switchedFrom).toBe(firstSession);
    expect(second.command.context).toMatchObject({ trust: "untrusted", sessionTitle: expect.any(String) });
    // livemark_read_session reads the session the person is in.
    const read = await agent.call("livemark_read_session", {});
    expect(read.structured.messages.map((message: { text: string }) => message.text)).toContain(
      "second, in the new session",
    );
    expect(read.structured.messages.map((message: { text: string }) => message.text)).not.toContain(
      "first, in the first session",
    );
    // A reply on the first command goes to the first session's timeline, not this one.
    const late = await agent.call("livemark_report", {
      commandId: first.command.commandId,
      kind: "reply",
      text: "Reply for the first session",
    });
    expect(late.isError).toBeFalsy();
    await agent.call("livemark_report", {
      commandId: second.command.commandId,
      kind: "reply",
      text: "Reply for the new session",
    });
    await page.getByRole("article", { name: "Agent reply" }).getByText("Reply for the new session").waitFor();
    expect(await page.getByText("Reply for the first session").count()).toBe(0);
    await page.getByRole("navigation", { name: "Sessions" }).getByText("first, in the first session").click();
    await page.getByRole("article", { name: "Agent reply" }).getByText("Reply for the first session").waitFor({
      timeout: 15_000,
    });
  });

  it("refuses a page from another origin, a wrong or expired code, and a foreign Host header", async () => {
    // A page of an origin the bridge was not told about (a second server: another port, another origin).
    const foreign = await serveStatic();
    try {
      const other = await context.newPage();
      await other.goto(`${foreign.url}`);
      const outcome = await other.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(url);
            socket.onopen = () => resolve("open");
            socket.onerror = () => resolve("refused");
          }),
        `ws://127.0.0.1:${bridge.port}/page`,
      );
      expect(outcome).toBe("refused");
      await other.close();
    } finally {
      await foreign.close();
    }
    // The same from outside a browser, with a forged Origin.
    const forged = await new Promise<string>((resolve) => {
      const socket = new NodeWebSocket(`ws://127.0.0.1:${bridge.port}/page`, { origin: "https://evil.example" });
      socket.once("open", () => resolve("open"));
      socket.once("unexpected-response", (_request, response) => resolve(String(response.statusCode)));
      socket.once("error", () => resolve("error"));
    });
    expect(forged).toBe("403");

    // DNS rebinding: the right address, a foreign Host.
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: "127.0.0.1",
          port: bridge.port,
          path: "/mcp",
          method: "POST",
          headers: {
            host: "evil.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        }),
      );
    });
    expect(hostStatus).toBe(403);

    // A wrong code.
    const code = await invite();
    const agent = await connectAgent(bridge.port);
    agents.push(agent);
    const wrong = await agent.call("livemark_join", { code: code === "AAAA-AAAA" ? "BBBB-BBBB" : "AAAA-AAAA" });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/Unknown channel code/);
    await dialog().getByText("waiting for the agent").waitFor();
    await closeDialog();

    // An expired code: a bridge whose codes live 1.5 s (the clock is the bridge's option).
    const shortLived = await startBridgeProcess(["--allow-origin", app.origin, "--code-ttl-ms", "1500"]);
    try {
      await page.getByRole("button", { name: "Invite agent" }).click();
      await dialog().getByRole("button", { name: "End channel" }).click();
      await dialog().getByRole("button", { name: "New channel" }).click();
      const address = dialog().getByLabel("Bridge address");
      await address.fill(`ws://127.0.0.1:${shortLived.port}/page`);
      await address.press("Enter");
      await dialog().getByText("waiting for the agent").waitFor({ timeout: 30_000 });
      const shortCode = await dialog().getByLabel("Channel code").inputValue();
      await dialog().getByText("code expired").waitFor({ timeout: 30_000 });
      const late = await connectAgent(shortLived.port);
      agents.push(late);
      const expired = await late.call("livemark_join", { code: shortCode });
      expect(expired.isError).toBe(true);
      expect(expired.text).toMatch(/expired/);
      // A new code works again.
      await dialog().getByRole("button", { name: "New code" }).click();
      await dialog().getByText("waiting for the agent").waitFor({ timeout: 15_000 });
      const fresh = await dialog().getByLabel("Channel code").inputValue();
      expect(fresh).not.toBe(shortCode);
      expect((await late.call("livemark_join", { code: fresh })).isError).toBeFalsy();
    } finally {
      await closeAgentsAndStop(shortLived);
    }
  });

  it("the agent's code asks for consent like the model's: a one-time grant, spent when used; Deny reaches the agent", async () => {
    const internet = await startInternet();
    try {
      const code = await invite();
      await closeDialog();
      const agent = await joinedAgent(code);
      const wait = agent.nextCommand(0);
      await send(page, "Fetch the sales");
      const command = (await wait).structured.command.commandId as string;
      const url = `${internet.origin}/sales.json`;
      const run = agent.call("livemark_run", {
        commandId: command,
        markdown:
          `${FENCE}ts agent.run
` +
          `const first = await fetch(${JSON.stringify(url)})
console.log("first", first.status)
` +
          `try { await fetch(${JSON.stringify(url)}) } catch (error) { console.log("second refused:", error.message) }
` +
          `${FENCE}
`,
      });
      const ask = page.getByRole("group", { name: "Permission request" });
      await answerAsk(ask, "Allow once");
      // The grant was spent: the same call asks again, and this time the person denies it.
      await expect
        .poll(() => internet.requests.filter((request) => request.path === "/sales.json").length, { timeout: 15_000 })
        .toBe(1);
      await answerAsk(ask, "Deny");
      const result = await run;
      expect(result.structured.feedback).toContain("first 200");
      expect(result.structured.feedback).toMatch(/second refused:/);
      expect(internet.requests.filter((request) => request.path === "/sales.json")).toHaveLength(1);
    } finally {
      await internet.close();
    }
  });

  it("a reload resumes the channel: the agent's wait goes on and the next command arrives once; Confirm each run is kept", async () => {
    const code = await invite(bridge.port, { "Confirm each run": true });
    await closeDialog();
    const agent = await joinedAgent(code);
    const firstWait = agent.nextCommand(0);
    await send(page, "before the reload");
    const first = (await firstWait).structured;
    // The agent waits for the next command while the page reloads.
    const waiting = agent.nextCommand(first.cursor);
    await page.reload();
    await page.getByText("The page reloaded: the agent's channel goes on (nothing was lost).").waitFor({
      timeout: 30_000,
    });
    await page.getByRole("checkbox", { name: /Send to the agent/ }).waitFor();
    await send(page, "after the reload");
    const after = (await waiting).structured;
    expect(after.command.instruction).toBe("after the reload");
    expect(after.cursor).toBe(first.cursor + 1);
    // Nothing repeated: the next wait times out.
    expect(
      (await agent.call("livemark_wait_for_command", { cursor: after.cursor, timeoutS: 1 })).structured.timeout,
    ).toBe(true);
    // The rights came back with the channel: the run waits for the person.
    const run = agent.call("livemark_run", {
      commandId: after.command.commandId,
      markdown: `${FENCE}ts agent.run\nconsole.log("after", 1 + 1)\n${FENCE}\n`,
    });
    const approval = page.getByRole("region", { name: "Run waiting for permission" });
    await approval.getByRole("button", { name: "Allow once" }).click();
    expect((await run).structured.feedback).toContain("after 2");
  });

  it('closing the tab ends the channel after the grace: a waiting agent then hears "channel closed"', async () => {
    const graceful = await startBridgeProcess(["--allow-origin", app.origin, "--resume-grace-ms", "1500"]);
    try {
      const code = await invite(graceful.port);
      await closeDialog();
      const agent = await joinedAgent(code, "test-agent", graceful.port);
      const waiting = agent.call("livemark_wait_for_command", { cursor: 0, timeoutS: 30 });
      await page.close();
      const result = await waiting;
      expect(result.isError).toBe(true);
      expect(result.text).toBe("channel closed");
      expect((await agent.call("livemark_join", { code })).isError).toBe(true);
    } finally {
      await closeAgentsAndStop(graceful);
    }
  });

  it("Confirm each run: the run waits (Waiting for permission) showing its Markdown and the command; Reject tells the agent and nothing runs; Allow once runs it; the approval is not reused for other Markdown; each decision is audited", async () => {
    const code = await invite(bridge.port, { "Confirm each run": true });
    await closeDialog();
    const agent = await joinedAgent(code);
    const wait = agent.nextCommand(0);
    await send(page, "Count the sheep");
    const commandId = (await wait).structured.command.commandId as string;
    const approval = page.getByRole("region", { name: "Run waiting for permission" });

    const rejected = agent.call("livemark_run", {
      commandId,
      markdown: `${FENCE}ts agent.run\nconsole.log("sheep", 7)\n${FENCE}\n`,
    });
    await approval.waitFor({ timeout: 15_000 });
    expect(await approval.textContent()).toContain("Count the sheep");
    expect(await approval.textContent()).toContain('console.log("sheep", 7)');
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Waiting for permission/);
    await approval.getByRole("button", { name: "Reject" }).click();
    const rejection = await rejected;
    expect(rejection.isError).toBe(true);
    expect(rejection.text).toMatch(/the person rejected this run/);
    expect(await page.getByRole("article", { name: "Reply" }).count()).toBe(0);

    const allowed = agent.call("livemark_run", {
      commandId,
      markdown: `${FENCE}ts agent.run\nconsole.log("goats", 8)\n${FENCE}\n`,
    });
    await approval.getByRole("button", { name: "Allow once" }).click();
    expect((await allowed).structured.feedback).toContain("goats 8");
    // Spent: another Markdown for the same command waits again.
    const again = agent.call("livemark_run", {
      commandId,
      markdown: `${FENCE}ts agent.run\nconsole.log("cows", 9)\n${FENCE}\n`,
    });
    await approval.waitFor({ timeout: 15_000 });
    expect(await approval.textContent()).toContain('console.log("cows", 9)');
    await approval.getByRole("button", { name: "Reject" }).click();
    expect((await again).isError).toBe(true);
    expect(await page.getByRole("article", { name: "Reply" }).count()).toBe(1);

    // Each decision, with the agent's name, in Session settings' audit list; the rights are there too.
    await page.getByRole("button", { name: "Session settings" }).click();
    const settings = page.getByRole("dialog", { name: "Session settings" });
    const audit = settings.getByRole("region", { name: "Audit list" });
    await expect
      .poll(async () => (await audit.getByRole("row").allTextContents()).filter((row) => row.includes("livemark_run")))
      .toEqual([
        expect.stringMatching(/livemark_run test-agent.*rejected/),
        expect.stringMatching(/livemark_run test-agent.*allowed once/),
        expect.stringMatching(/livemark_run test-agent.*rejected/),
      ]);
    const invited = settings.getByRole("region", { name: "Invited agent" });
    expect(await invited.getByRole("checkbox", { name: "Confirm each run" }).isChecked()).toBe(true);
    // Run code off, from Session settings: the agent is refused in plain words.
    await invited.getByRole("checkbox", { name: "Run code" }).uncheck();
    await settings.getByRole("button", { name: "Close" }).last().click();
    const refused = await agent.call("livemark_run", { commandId, markdown: "hello" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe("the person has not allowed this agent to run code in this session");
  });

  it("Read the session off: the join carries no session content and livemark_read_session is refused", async () => {
    const code = await invite(bridge.port, { "Read the session": false });
    await closeDialog();
    const agent = await joinedAgent(code);
    expect(agent.joined.structured).toMatchObject({ title: "", mounts: [] });
    const read = await agent.call("livemark_read_session", {});
    expect(read.isError).toBe(true);
    expect(read.text).toBe("the person has not allowed this agent to read this session");
  });

  it("under each agent reply, what really happened while it held the command: runs, errors, mounts created and updated; a claimed change with no record gets a quiet note", async () => {
    const code = await invite();
    await closeDialog();
    const agent = await joinedAgent(code);
    const firstWait = agent.nextCommand(agent.cursor);
    await send(page, "Make a counter");
    const first = (await firstWait).structured;
    const ran = await agent.call("livemark_run", {
      commandId: first.command.commandId,
      markdown:
        `${FENCE}tsx agent.run\n` +
        "const tally = new Data({ n: 0 })\n" +
        'mount({ title: "Tally", ui: ({ data }) => <p>Tally: {data.n}</p>, data: tally })\n' +
        'console.log("tally ready")\n' +
        'throw new Error("a deliberate slip")\n' +
        `${FENCE}\n`,
    });
    expect(ran.structured.feedback).toContain("a deliberate slip");
    await page.getByLabel("Mounted UI").getByText("Tally: 0").waitFor({ timeout: 30_000 });
    await agent.call("livemark_report", {
      commandId: first.command.commandId,
      kind: "reply",
      text: "Made the tally and a chart.",
      summary: { status: "done", changed: { mounts: ["Tally", "Sales chart"] } },
    });
    const reply = page.getByRole("article", { name: "Agent reply" }).filter({ hasText: "Made the tally" });
    const happened = reply.getByRole("region", { name: "What really happened" });
    await happened.waitFor({ timeout: 15_000 });
    const record = (await happened.textContent()) ?? "";
    expect(record).toMatch(/1 run: 4 statements, 1 error \(a deliberate slip\)/);
    expect(record).toContain("Mounts created: Tally.");
    expect(record).not.toContain("Mounts updated");
    // "Sales chart" was claimed and never made; "Tally" was.
    const summary = await reply.getByRole("region", { name: "Reply summary" }).textContent();
    expect(summary).toContain("mounts: Tally, Sales chart (Sales chart: no matching change recorded)");

    // The next command changes the mount the first one made.
    const secondWait = agent.nextCommand(first.cursor);
    await send(page, "Set the tally to five");
    const second = (await secondWait).structured;
    await agent.call("livemark_run", {
      commandId: second.command.commandId,
      markdown: `${FENCE}ts agent.run\ntally.n = 5\nawait storage.set("tally-saved", 5)\n${FENCE}\n`,
    });
    await page.getByLabel("Mounted UI").getByText("Tally: 5").waitFor({ timeout: 15_000 });
    await agent.call("livemark_report", {
      commandId: second.command.commandId,
      kind: "reply",
      text: "Set it.",
      summary: { status: "done", changed: { mounts: ["Tally"], data: ["tally-saved", "tally-history"] } },
    });
    const secondReply = page.getByRole("article", { name: "Agent reply" }).filter({ hasText: "Set it." });
    const secondRecord = secondReply.getByRole("region", { name: "What really happened" });
    await secondRecord.waitFor({ timeout: 15_000 });
    expect(await secondRecord.textContent()).toMatch(
      /1 run: 2 statements, 0 errors\.[\s\S]*Mounts updated: Tally\.[\s\S]*App data written: tally-saved\./,
    );
    // The mount and the key that were written match; the key never written does not.
    const secondSummary = await secondReply.getByRole("region", { name: "Reply summary" }).textContent();
    expect(secondSummary).toMatch(/mounts: Tally(?! \()/);
    expect(secondSummary).toContain("data: tally-saved, tally-history (tally-history: no matching change recorded)");
  });

  it("a bridge anyone can start: Download bridge saves one file that, alone in an empty folder, accepts this page without options and serves every tool", async () => {
    const folder = await mkdtemp(join(tmpdir(), "livemark-bridge-"));
    let standalone: Bridge | undefined;
    try {
      await page.getByRole("button", { name: "Invite agent" }).click();
      await dialog().waitFor({ timeout: 30_000 });
      const setup = dialog().getByRole("region", { name: "Start the bridge" });
      expect(await setup.getByLabel("Command to start the bridge").inputValue()).toBe("node livemark-bridge.mjs");
      await setup.getByRole("button", { name: "Copy command", exact: true }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("node livemark-bridge.mjs");
      expect(await setup.getByLabel("Command with this page's origin", { exact: true }).inputValue()).toBe(
        `node livemark-bridge.mjs --allow-origin ${app.origin}`,
      );
      await setup.getByText("MCP client configurations").click();
      const claude = JSON.parse(await setup.getByLabel(/^Claude Desktop \(stdio\)/).inputValue());
      expect(claude.mcpServers.livemark).toEqual({
        command: "node",
        args: ["/path/to/livemark-bridge.mjs", "--stdio", "--allow-origin", app.origin],
      });
      expect(JSON.parse(await setup.getByLabel(/^VS Code/).inputValue())).toEqual({
        servers: { livemark: { type: "http", url: "http://127.0.0.1:4737/mcp" } },
      });
      const downloading = page.waitForEvent("download");
      await setup.getByRole("button", { name: "Download bridge" }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe("livemark-bridge.mjs");
      await download.saveAs(join(folder, "livemark-bridge.mjs"));
      await closeDialog();
      expect(await readdir(folder)).toEqual(["livemark-bridge.mjs"]);

      // Only the file, in a folder with no node_modules, and no --allow-origin: it knows the page it came from.
      standalone = await startBridgeProcess([], ["livemark-bridge.mjs"], folder);
      expect(standalone.stderr.join("")).toContain(app.origin);
      const lister = await connectAgent(standalone.port, "lister");
      agents.push(lister);
      expect((await lister.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        "livemark_join",
        "livemark_read_session",
        "livemark_report",
        "livemark_run",
        "livemark_wait_for_command",
      ]);

      const code = await invite(standalone.port);
      await closeDialog();
      const agent = await joinedAgent(code, "test-agent", standalone.port);
      const wait = agent.nextCommand(agent.cursor);
      await send(page, "Say hello from the standalone bridge");
      const command = (await wait).structured.command.commandId as string;
      const ran = await agent.call("livemark_run", {
        commandId: command,
        markdown: `${FENCE}ts agent.run\nconsole.log("standalone", 40 + 2)\n${FENCE}\n`,
      });
      expect(ran.structured.feedback).toContain("standalone 42");
      const read = await agent.call("livemark_read_session", {});
      expect(read.structured.messages.map((message: { text: string }) => message.text)).toContain(
        "Say hello from the standalone bridge",
      );
      expect(
        (await agent.call("livemark_report", { commandId: command, kind: "reply", text: "Hello from one file" }))
          .isError,
      ).toBeFalsy();
      await page.getByRole("article", { name: "Agent reply" }).getByText("Hello from one file").waitFor();
    } finally {
      await Promise.all(agents.splice(0).map((agent) => agent.close().catch(() => undefined)));
      await stopBridgeProcess(standalone);
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("stops cleanly on SIGTERM", async () => {
    const extra = await startBridgeProcess([]);
    expect(await stopBridgeProcess(extra)).toBe(0);
  });
});

async function closeAgentsAndStop(bridgeProcess: Bridge) {
  await Promise.all(agents.splice(0).map((agent) => agent.close().catch(() => undefined)));
  await stopBridgeProcess(bridgeProcess);
}
