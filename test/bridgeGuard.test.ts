/**
 * The bridge's parts alone, without sockets: the HTTP guard's verdicts and
 * the page link's frames (bridgeServer.test.ts runs them together over real
 * sockets).
 */
import { describe, expect, it } from "vitest";
import { ChannelRegistry } from "../bridge/channels";
import { BIND_ADDRESS, DEFAULT_PAGE_ORIGINS, allowedOrigins, refuseRequest, refuseUpgrade } from "../bridge/httpGuard";
import { PageSockets, ToolError, type PageSocketLike } from "../bridge/pageSocket";
import {
  BRIDGE_WIRE_VERSION,
  CHANNEL_CLOSED,
  bridgeMessageSchema,
  type BridgeMessage,
  type PageMessage,
} from "../src/wire/bridge";

const ORIGIN = "http://app.test:8080";
const origins = allowedOrigins([`${ORIGIN}/`]);

describe("HTTP guard", () => {
  it("binds loopback and lists the app's own origins plus the extra ones, without trailing slashes", () => {
    expect(BIND_ADDRESS).toBe("127.0.0.1");
    for (const origin of DEFAULT_PAGE_ORIGINS) expect(origins.has(origin)).toBe(true);
    expect(origins.has(ORIGIN)).toBe(true);
    expect(origins.has("https://evil.example")).toBe(false);
  });

  it("refuses a request whose Host is not loopback (DNS rebinding) or whose Origin is not listed", () => {
    expect(refuseRequest({ host: "127.0.0.1:4737" }, origins)).toBeUndefined();
    expect(refuseRequest({ host: "localhost:4737", origin: ORIGIN }, origins)).toBeUndefined();
    expect(refuseRequest({ host: "[::1]:4737" }, origins)).toBeUndefined();
    expect(refuseRequest({ host: "evil.example:4737" }, origins)).toMatch(/Host header/);
    expect(refuseRequest({}, origins)).toMatch(/Host header/);
    expect(refuseRequest({ host: "127.0.0.1", origin: "https://evil.example" }, origins)).toMatch(/origin/);
  });

  it("lets the page's socket upgrade only at /page, with a loopback Host and a listed Origin", () => {
    expect(refuseUpgrade("/page", { host: "127.0.0.1:4737", origin: ORIGIN }, origins)).toBeUndefined();
    expect(refuseUpgrade("/mcp", { host: "127.0.0.1:4737", origin: ORIGIN }, origins)).toEqual({
      status: "404 Not Found",
    });
    expect(refuseUpgrade("/page", { host: "evil.example", origin: ORIGIN }, origins)).toEqual({
      status: "403 Forbidden",
    });
    // Not covered by CORS: a socket without an Origin, or from another site, is refused (and logged).
    expect(refuseUpgrade("/page", { host: "127.0.0.1" }, origins)?.status).toBe("403 Forbidden");
    expect(refuseUpgrade("/page", { host: "127.0.0.1", origin: "https://evil.example" }, origins)).toEqual({
      status: "403 Forbidden",
      log: "refused a page connection from origin https://evil.example",
    });
  });
});

describe("page link", () => {
  const setup = () => {
    const sent: BridgeMessage[] = [];
    const socket: PageSocketLike = {
      readyState: 1,
      OPEN: 1,
      send: (data: string) => void sent.push(bridgeMessageSchema.parse(JSON.parse(data))),
    } as PageSocketLike;
    const registry = new ChannelRegistry({ now: () => 0, newCode: () => `CODE-${sent.length}` });
    const pages = new PageSockets({ registry, labelOf: (agent) => `label of ${agent}`, log: () => undefined });
    const link = pages.open(socket);
    const say = (message: PageMessage | string) =>
      pages.receive(link, typeof message === "string" ? message : JSON.stringify(message));
    return { sent, registry, pages, link, say };
  };

  it("refuses a malformed frame and a command before hello, and opens one channel per link", () => {
    const { sent, say, link } = setup();
    say("{not json");
    say({ type: "command", command: { commandId: "c1", sessionId: "s1", kind: "message", text: "hi", capturedAt: 1 } });
    expect(sent.map((message) => message.type)).toEqual(["refused", "refused"]);
    say({ type: "hello", version: BRIDGE_WIRE_VERSION, sessionId: "s1" });
    expect(sent[2]).toMatchObject({ type: "channel" });
    expect(link.channel?.sessionId).toBe("s1");
    say({ type: "hello", version: BRIDGE_WIRE_VERSION, sessionId: "s2" });
    expect(sent[3]).toMatchObject({ type: "refused", message: "This connection already has a channel." });
    say({ type: "end" });
  });

  it("carries a request to the page, checks the answer, and fails waiting requests when the page ends the channel", async () => {
    const { sent, say, pages, link } = setup();
    say({ type: "hello", version: BRIDGE_WIRE_VERSION, sessionId: "s1" });
    const channel = link.channel!;
    const joined = pages.request(channel, "agent 1", { method: "join" });
    const request = sent.at(-1) as Extract<BridgeMessage, { type: "request" }>;
    expect(request).toMatchObject({ type: "request", agent: "label of agent 1", request: { method: "join" } });
    say({ type: "response", requestId: request.requestId, result: { title: "Trip", mounts: [] } });
    await expect(joined).resolves.toEqual({ title: "Trip", mounts: [] });

    const malformed = pages.request(channel, "agent 1", { method: "join" });
    say({
      type: "response",
      requestId: (sent.at(-1) as Extract<BridgeMessage, { type: "request" }>).requestId,
      result: { nope: true },
    });
    await expect(malformed).rejects.toThrow(/malformed/);

    const waiting = pages.request(channel, "agent 1", { method: "read-session" });
    say({ type: "end" });
    await expect(waiting).rejects.toBeInstanceOf(ToolError);
    await expect(pages.request(channel, "agent 1", { method: "join" })).rejects.toThrow(CHANNEL_CLOSED);
    expect(channel.closed).toBe(true);
  });
});
