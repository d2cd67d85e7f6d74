/**
 * The network capability end to end in Node: `fetch` in the realm (its real
 * realm-side implementation) → a real MessageChannel → the host's connection
 * → the network broker → a local HTTP server playing "the internet". The
 * person is a script answering the broker's asks. The browser-only rules
 * (CORS, cookies, the inline ask) are in e2e/capabilities.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createNetworkBroker,
  type NetworkAuditRecord,
  type NetworkBrokerOptions,
  type PermissionAsk,
} from "../src/capabilities/network/createNetworkBroker";
import type { PersonAnswer } from "../src/capabilities/network/networkPolicy";
import { createRealmConnection } from "../src/sandbox/createRealmConnection";
import { RealmHostError } from "../src/sandbox/RealmHostError";
import { NET_FETCH } from "../src/wire/capabilities";
import { CALL, RESULT } from "../src/wire/constants";
import { createRealm } from "../workers/realm/createRealm";

interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}
let server: Server;
let origin: string;
let otherOrigin: string;
const hits: Hit[] = [];
/** Responses held open until released (for revoke mid-call). */
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      hits.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      const path = new URL(request.url ?? "/", "http://x").pathname;
      if (path === "/hold") {
        held.push(response);
        response.writeHead(200, { "content-type": "text/plain" });
        response.write("partial");
        return;
      }
      if (path === "/big") {
        response.writeHead(200, { "content-type": "application/octet-stream" });
        response.end(Buffer.alloc(2048, 1));
        return;
      }
      if (path === "/redirect") {
        // "The internet" sending the call on to another address (the third server, never granted).
        const query = new URL(request.url ?? "/", "http://x").searchParams;
        response.writeHead(Number(query.get("status") ?? 302), { location: query.get("to") ?? "/" });
        response.end();
        return;
      }
      if (path === "/missing") {
        response.writeHead(404, "Not Found", { "content-type": "text/plain" });
        response.end("no such thing");
        return;
      }
      response.writeHead(200, "OK", { "content-type": "application/json", "x-served-by": "the-internet" });
      response.end(JSON.stringify({ path, method: request.method, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A third server that no one granted: it records every request that reaches it. */
const ungrantedHits: Hit[] = [];
let ungranted: Server;
let ungrantedOrigin: string;
beforeAll(async () => {
  ungranted = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      ungrantedHits.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("the ungranted service answered");
    });
  });
  await new Promise<void>((resolve) => ungranted.listen(0, "127.0.0.1", resolve));
  ungrantedOrigin = `http://127.0.0.1:${(ungranted.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => ungranted.close(() => resolve())));

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  for (const response of held.splice(0)) response.destroy();
  hits.length = 0;
  ungrantedHits.length = 0;
});

/** A person who answers asks in order from a script; asks are recorded. */
function person(answers: PersonAnswer[] = []) {
  const asks: PermissionAsk[] = [];
  const waiting: { ask: PermissionAsk; answer(value: PersonAnswer): void }[] = [];
  const ask: NetworkBrokerOptions["ask"] = (request, signal) =>
    new Promise((resolve, reject) => {
      asks.push(request);
      const next = answers.shift();
      if (next) return resolve(next);
      waiting.push({ ask: request, answer: resolve });
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  return { asks, waiting, ask };
}

function setup(answers: PersonAnswer[] = [], options: Partial<NetworkBrokerOptions> = {}) {
  const who = person(answers);
  const audit: NetworkAuditRecord[] = [];
  const broker = createNetworkBroker({ ask: who.ask, audit: (record) => void audit.push(record), ...options });
  const channel = new MessageChannel();
  let id = 0;
  const invalid: string[] = [];
  const connection = createRealmConnection({
    port: channel.port1,
    nextId: () => ++id,
    service: (name) => (name === NET_FETCH ? broker.service : undefined),
    handlers: {
      onReady() {},
      onEvent() {},
      onMount() {},
      onUnresponsive() {},
      onClosed() {},
      onInvalid: (reason) => void invalid.push(reason),
    },
  });
  // The realm the worker runs (no code is sent), served on the other port; its `fetch` global is the one model code calls.
  const served = createRealm();
  const realm = served.serve(channel.port2);
  cleanups.push(() => {
    connection.close(new RealmHostError("disposed", "test over"));
    channel.port2.close();
  });
  const realmFetch = served.globals.fetch as typeof fetch;
  return { broker, who, audit, realmFetch, connection, realm, channel, invalid };
}

async function eventually(check: () => void, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

describe("fetch in the realm through the network broker", () => {
  it("Allow once: the call succeeds with a standard Response; the next call asks again", async () => {
    const { realmFetch, who, audit } = setup(["once", "deny"]);
    const response = await realmFetch(`${origin}/data?x=1`);
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.statusText).toBe("OK");
    expect(response.url).toBe(`${origin}/data?x=1`);
    expect(response.headers.get("x-served-by")).toBe("the-internet");
    await expect(response.clone().json()).resolves.toEqual({ path: "/data", method: "GET", body: "" });
    await expect(response.clone().text()).resolves.toContain('"path":"/data"');
    expect((await response.clone().arrayBuffer()).byteLength).toBeGreaterThan(10);
    expect((await response.blob()).type).toBe("application/json");
    expect(who.asks).toMatchObject([
      { method: "GET", url: `${origin}/data?x=1`, host: new URL(origin).host, bodySize: 0 },
    ]);

    await expect(realmFetch(`${origin}/data?x=1`)).rejects.toMatchObject({
      name: "CapabilityError",
      message: expect.stringMatching(/person denied/),
    });
    expect(who.asks).toHaveLength(2);
    expect(hits).toHaveLength(1);
    expect(audit.map((entry) => [entry.decision, entry.result, entry.status])).toEqual([
      ["allowed-once", "ok", 200],
      ["denied", "denied", undefined],
    ]);
  });

  it("Always allow this host: later calls pass without asking; another host asks", async () => {
    const { realmFetch, who, broker } = setup(["host", "deny"]);
    await realmFetch(`${origin}/a`);
    await realmFetch(`${origin}/b`, { method: "POST", body: "hello" });
    expect(who.asks).toHaveLength(1);
    expect(hits.map((hit) => [hit.method, hit.url, hit.body])).toEqual([
      ["GET", "/a", ""],
      ["POST", "/b", "hello"],
    ]);
    expect(broker.state().hosts).toEqual([new URL(origin).host]);
    await expect(realmFetch(`${otherOrigin}/a`)).rejects.toMatchObject({ name: "CapabilityError" });
    expect(who.asks.map((ask) => ask.host)).toEqual([new URL(origin).host, new URL(otherOrigin).host]);
  });

  it("a non-2xx status is a response, not an error", async () => {
    const { realmFetch } = setup([], { initial: { mode: "allowed", hosts: [], strict: false, grants: [] } });
    const response = await realmFetch(`${origin}/missing`);
    expect([response.ok, response.status, await response.text()]).toEqual([false, 404, "no such thing"]);
  });

  it("the network off refuses without asking and without a request", async () => {
    const { realmFetch, who } = setup([], {
      initial: { mode: "off", hosts: [new URL(origin).host], strict: false, grants: [] },
    });
    await expect(realmFetch(`${origin}/a`)).rejects.toMatchObject({
      name: "CapabilityError",
      message: expect.stringMatching(/network is off/),
    });
    expect(who.asks).toHaveLength(0);
    expect(hits).toHaveLength(0);
  });

  it("strict mode asks for every call, even on an allowed host", async () => {
    const { realmFetch, who } = setup(["once", "once"], {
      initial: { mode: "ask", hosts: [new URL(origin).host], strict: true, grants: [] },
    });
    await realmFetch(`${origin}/a`);
    await realmFetch(`${origin}/a`);
    expect(who.asks).toHaveLength(2);
  });

  it("revoking a host aborts the call in flight on it and later calls ask again", async () => {
    const { realmFetch, who, broker, audit } = setup(["host"]);
    const call = realmFetch(`${origin}/hold`).then((response) => response.text());
    await eventually(() => expect(held).toHaveLength(1));
    broker.revokeHost(new URL(origin).host);
    await expect(call).rejects.toMatchObject({ message: expect.stringMatching(/revoked access/) });
    expect(audit.at(-1)).toMatchObject({ decision: "allowed-host", result: "revoked" });
    const again = realmFetch(`${origin}/a`);
    await eventually(() => expect(who.waiting).toHaveLength(1));
    who.waiting[0].answer("deny");
    await expect(again).rejects.toMatchObject({ name: "CapabilityError" });
  });

  it("the caller's AbortSignal withdraws the request, also while the person is asked", async () => {
    const { realmFetch, who, connection } = setup([]);
    const controller = new AbortController();
    const call = realmFetch(`${origin}/a`, { signal: controller.signal });
    await eventually(() => expect(who.waiting).toHaveLength(1));
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await eventually(() => expect(connection.serviceRequestsInFlight()).toBe(0));
    expect(hits).toHaveLength(0);
  });

  it("enforces the size and the time limits with clear errors", async () => {
    const small = setup([], {
      initial: { mode: "allowed", hosts: [], strict: false, grants: [] },
      maxResponseBytes: 1024,
    });
    await expect(small.realmFetch(`${origin}/big`)).rejects.toThrow(/over the .* MB limit/);
    const slow = setup([], { initial: { mode: "allowed", hosts: [], strict: false, grants: [] }, timeoutMs: 200 });
    await expect(slow.realmFetch(`${origin}/hold`)).rejects.toThrow(/took longer than 0.2 s/);
  });

  it("an unreachable server is a TypeError that says the server does not allow browser requests or could not be reached", async () => {
    const { realmFetch } = setup([], { initial: { mode: "allowed", hosts: [], strict: false, grants: [] } });
    await expect(realmFetch("http://127.0.0.1:1/nothing")).rejects.toMatchObject({
      name: "TypeError",
      message: expect.stringMatching(/does not allow browser requests/),
    });
  });
});

describe("redirects never take a call past the person's decision", () => {
  const redirect = (status: number, to: string) => `${origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it('Always allow this host: a 302 and a 307 with a POST body to an ungranted server are not followed; the code hears code "redirected" and the audit says so', async () => {
    const { realmFetch, who, audit } = setup(["host"]);
    await expect(realmFetch(redirect(302, `${ungrantedOrigin}/steal?key=secret`))).rejects.toMatchObject({
      code: "redirected",
      message: expect.stringMatching(/the server redirected to another address; fetch the final URL directly/),
    });
    await expect(
      realmFetch(redirect(307, `${ungrantedOrigin}/steal`), { method: "POST", body: "the person's data" }),
    ).rejects.toMatchObject({
      code: "redirected",
    });
    expect(ungrantedHits).toEqual([]);
    expect(who.asks).toHaveLength(1);
    expect(hits.map((hit) => [hit.method, new URL(hit.url, "http://x").pathname, hit.body])).toEqual([
      ["GET", "/redirect", ""],
      ["POST", "/redirect", "the person's data"],
    ]);
    expect(audit.map((entry) => [entry.method, entry.decision, entry.result, entry.status])).toEqual([
      ["GET", "allowed-host", "redirected", 302],
      ["POST", "allowed-host", "redirected", 307],
    ]);
  });

  it("Allow once: a redirect to the ungranted server is refused the same way, and the grant is spent", async () => {
    const { realmFetch, who, audit } = setup(["once", "deny"]);
    const url = redirect(307, `${ungrantedOrigin}/steal`);
    await expect(realmFetch(url, { method: "POST", body: "once" })).rejects.toMatchObject({ code: "redirected" });
    await expect(realmFetch(url, { method: "POST", body: "once" })).rejects.toMatchObject({ name: "CapabilityError" });
    expect(ungrantedHits).toEqual([]);
    expect(who.asks).toHaveLength(2);
    expect(audit.map((entry) => [entry.decision, entry.result])).toEqual([
      ["allowed-once", "redirected"],
      ["denied", "denied"],
    ]);
  });

  it("a redirect to the same granted host is not followed either (the code fetches the final URL itself)", async () => {
    const { realmFetch } = setup([], { initial: { mode: "allowed", hosts: [], strict: false, grants: [] } });
    await expect(realmFetch(redirect(301, `${origin}/data`))).rejects.toMatchObject({
      name: "RedirectError",
      code: "redirected",
    });
    expect(hits.map((hit) => new URL(hit.url, "http://x").pathname)).toEqual(["/redirect"]);
  });
});

describe("forging a grant from the realm", () => {
  it("fields the realm adds to its request (allow, grant ids, a decision) change nothing", async () => {
    const { realm, who, channel } = setup([]);
    // Straight onto the port, as code that got hold of it could: the broker reads only URL, method, headers and body.
    channel.port2.postMessage({
      type: CALL,
      id: 9_001,
      method: NET_FETCH,
      timeoutMs: null,
      payload: {
        url: `${origin}/steal`,
        method: "GET",
        headers: [],
        body: null,
        allow: true,
        grant: "g-1",
        decision: "allowed-host",
        answer: "once",
      },
    });
    // A fake "allow" message of the kind the host would never accept.
    channel.port2.postMessage({ type: "grant", id: 9_001, answer: "once" });
    channel.port2.postMessage({ type: RESULT, id: 9_001, ok: true, value: "allow" });
    await eventually(() => expect(who.waiting).toHaveLength(1));
    expect(hits).toHaveLength(0);
    who.waiting[0].answer("deny");
    // The denied request has ended (none in flight); nothing reached the server.
    await expect.poll(() => realm.requests.inFlight()).toBe(0);
    expect(hits).toHaveLength(0);
  });

  it("a grant is never replayed: the same request again asks again", async () => {
    const { realmFetch, who } = setup(["once"]);
    await realmFetch(`${origin}/once`);
    const replay = realmFetch(`${origin}/once`);
    await eventually(() => expect(who.waiting).toHaveLength(1));
    who.waiting[0].answer("deny");
    await expect(replay).rejects.toMatchObject({ name: "CapabilityError" });
    expect(hits).toHaveLength(1);
  });

  it("two identical racing calls and one Allow once: exactly one request goes out", async () => {
    const { realmFetch, who } = setup([]);
    const first = realmFetch(`${origin}/race`, { method: "POST", body: "same" });
    const second = realmFetch(`${origin}/race`, { method: "POST", body: "same" });
    // One ask per host: the second call waits behind the first's.
    await eventually(() => expect(who.waiting).toHaveLength(1));
    // Which call asks first is not fixed (each hashes its body off the main
    // thread first): the first ask belongs to either call, so follow both.
    const settled = [first, second].map((call) =>
      call.then(
        (response) => ({ call, response }),
        (error: unknown) => ({ call, error }),
      ),
    );
    who.waiting[0].answer("once");
    const winner = await Promise.race(settled);
    expect(winner).toMatchObject({ response: { status: 200 } });
    // The grant was spent by the call that asked: the other is asked about on its own.
    await eventually(() => expect(who.waiting).toHaveLength(2));
    expect(hits).toHaveLength(1);
    who.waiting[1].answer("deny");
    await expect(winner.call === first ? second : first).rejects.toMatchObject({ name: "CapabilityError" });
    expect(hits).toHaveLength(1);
  });
});
