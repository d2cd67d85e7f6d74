import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { listAppData } from "./appData";
import {
  APP_LINK_PREFIX,
  appIdOf,
  appMessages,
  appSessionExport,
  buildAppPayload,
  decodeAppLink,
  encodeAppLink,
  parseAppText,
  serializeApp,
  type AppPayload,
} from "./appLink";
import { importFile } from "./exportImport";
import { parseExportText } from "./exportSchema";
import { MAX_SHARE_LENGTH } from "./share";
import { listSessions } from "./sessions";
import type { Store } from "./store";
import { dumpDatabase, openTestStore, userMessage } from "./testSupport";

let store: Store | undefined;
afterEach(() => store?.db.close());

const SECRET_PROSE = "my private question about the quarterly numbers";
const REPLY_PROSE = "Here is a counter for you, as discussed privately";

function reply(id: string, code: string, mounts: { title?: string }[] = []): ChatMessage {
  return {
    id,
    role: "assistant",
    text: `${REPLY_PROSE}\n\n\`\`\`tsx agent.run\n${code}\n\`\`\``,
    reply: {
      blocks: [
        { index: 0, kind: "text", line: 1, text: REPLY_PROSE },
        {
          index: 1,
          kind: "code",
          lang: "tsx",
          line: 3,
          source: code,
          closed: true,
          unterminated: false,
          status: "done",
          statements: [{ statement: 0, line: 4, endLine: 4, source: code, status: "done", logs: [] }],
        },
        {
          index: 2,
          kind: "data",
          id: "rows",
          line: 6,
          source: "[1,2]",
          closed: true,
          unterminated: false,
          status: "done",
        },
      ],
      mounts: mounts.map((mount, index) => ({ mountId: `s:m${index}`, afterBlock: 1, ...mount })),
      protocolErrors: [],
      notices: [],
    },
    state: "done",
    createdAt: 2,
    model: "gpt-secret-model",
    usage: { inputTokens: 10, outputTokens: 20 },
  };
}

const session: ChatMessage[] = [
  userMessage("u1", SECRET_PROSE),
  reply("a1", "const base = 1"),
  { id: "f1", role: "feedback", text: "output", body: "base printed", source: "runtime", createdAt: 3 },
  reply("a2", "const prose = 'no code here'", []),
  userMessage("u2", "now a counter please"),
  reply("a3", "mount({ title: 'Counter', ui: () => <Button>count</Button> })", [{}, { title: "Counter" }]),
  reply("a4", "const later = 2"),
];

function payloadOf(messages = session, replyId = "a3"): AppPayload {
  const payload = buildAppPayload({
    sessionTitle: "Numbers",
    messages,
    replyId,
    appData: [{ key: "count", json: "3" }],
  });
  if (!payload) throw new Error("no payload");
  return payload;
}

async function deflate(text: string): Promise<string> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return Buffer.from(new Uint8Array(await new Response(stream).arrayBuffer())).toString("base64url");
}

describe("app links", () => {
  it("carries the code and data blocks up to the reply, its mount titles and app data, and nothing else", async () => {
    const payload = payloadOf();
    expect(payload.title).toBe("Counter");
    expect(payload.replies).toHaveLength(3);
    expect(payload.replies.map((item) => item.blocks.map((block) => block.source))).toEqual([
      ["const base = 1", "[1,2]"],
      ["const prose = 'no code here'", "[1,2]"],
      ["mount({ title: 'Counter', ui: () => <Button>count</Button> })", "[1,2]"],
    ]);
    expect(payload.replies[2].mounts).toEqual(["", "Counter"]);
    expect(payload.replies[0].mounts).toEqual([]);

    const encoded = await encodeAppLink(payload);
    if (!encoded.ok) throw new Error(encoded.error.message);
    expect(encoded.fragment).toMatch(/^#app=[A-Za-z0-9_-]+$/);
    const decoded = await decodeAppLink(`https://livemark.example/sub/?q=1${encoded.fragment}`);
    expect(decoded).toEqual({ ok: true, payload });

    // What the link decodes to, as text: no prose of the person or the model, no later code, no model or usage.
    const text = Buffer.from(
      await new Response(
        new Blob([Buffer.from(encoded.fragment.slice(APP_LINK_PREFIX.length), "base64url")])
          .stream()
          .pipeThrough(new DecompressionStream("deflate-raw")),
      ).arrayBuffer(),
    ).toString("utf8");
    for (const absent of [SECRET_PROSE, REPLY_PROSE, "now a counter", "base printed", "later", "gpt-secret-model"])
      expect(text).not.toContain(absent);
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(["appData", "format", "replies", "title", "version"]);
  });

  it("takes the session's title when the reply's mounts have none, and is undefined for a reply not in the session", () => {
    expect(payloadOf(session, "a1").title).toBe("Numbers");
    expect(buildAppPayload({ sessionTitle: "x", messages: session, replyId: "u1" })).toBeUndefined();
    expect(buildAppPayload({ sessionTitle: "x", messages: session, replyId: "nope" })).toBeUndefined();
  });

  it("refuses damaged and hostile links and files with a plain message, and never throws", async () => {
    const valid = payloadOf();
    const cases: [string, RegExp][] = [
      ["https://x.example/#share=abc", /no #app= part/],
      [`${APP_LINK_PREFIX}`, /damaged/],
      [`${APP_LINK_PREFIX}abc$%`, /damaged/],
      [`${APP_LINK_PREFIX}${"A".repeat(MAX_SHARE_LENGTH + 1)}`, /Livemark opens links up to/],
      [
        `${APP_LINK_PREFIX}${(await deflate(JSON.stringify(valid))).slice(0, 40)}`,
        /damaged|not JSON|not a Livemark app/,
      ],
      [`${APP_LINK_PREFIX}${await deflate("not json at all")}`, /not a Livemark app/],
      [`${APP_LINK_PREFIX}${await deflate(JSON.stringify({ format: "livemark.session" }))}`, /not a Livemark app/],
      [`${APP_LINK_PREFIX}${await deflate(JSON.stringify({ ...valid, apiKey: "sk-x" }))}`, /damaged/],
      [`${APP_LINK_PREFIX}${await deflate(JSON.stringify({ ...valid, replies: [] }))}`, /damaged/],
      [
        `${APP_LINK_PREFIX}${await deflate(JSON.stringify({ ...valid, appData: [{ key: "k", json: "{nope" }] }))}`,
        /not JSON/,
      ],
      [
        `${APP_LINK_PREFIX}${await deflate(
          JSON.stringify({
            ...valid,
            appData: [
              { key: "k", json: "1" },
              { key: "k", json: "2" },
            ],
          }),
        )}`,
        /twice/,
      ],
      [
        `${APP_LINK_PREFIX}${await deflate(`{"format":"livemark.app","version":1,"title":"t","__proto__":{"x":1},"replies":[]}`)}`,
        /not a Livemark app|damaged/,
      ],
      [`${APP_LINK_PREFIX}${await deflate("x".repeat(5 * 1024 * 1024))}`, /expands to more than/],
    ];
    for (const [link, message] of cases) {
      const decoded = await decodeAppLink(link);
      expect(decoded.ok, link.slice(0, 60)).toBe(false);
      if (!decoded.ok) expect(decoded.error.message).toMatch(message);
    }
    expect(parseAppText("[1,2")).toMatchObject({ ok: false });
    expect(parseAppText(serializeApp(valid))).toEqual({ ok: true, payload: valid });
  });

  it("says when an app is too big for a link", async () => {
    let noise = "";
    for (let index = 0; index < 60_000; index += 1) noise += String.fromCharCode(33 + Math.floor(Math.random() * 90));
    const big = payloadOf([reply("a1", `const noise = ${JSON.stringify(noise)}`)], "a1");
    const encoded = await encodeAppLink(big);
    expect(encoded.ok).toBe(false);
    if (!encoded.ok) expect(encoded.error.message).toMatch(/too big for a link.*Download app/);
  });

  it("gives each app its own stable id, and runs as replies of code only", async () => {
    const payload = payloadOf();
    expect(await appIdOf(payload)).toBe(await appIdOf(JSON.parse(JSON.stringify(payload)) as AppPayload));
    expect(await appIdOf(payload)).not.toBe(await appIdOf(payloadOf(session, "a1")));
    expect(await appIdOf(payload)).toMatch(/^app-[0-9a-f]{24}$/);
    const messages = appMessages(payload, 5);
    expect(messages.map((message) => message.id)).toEqual(["app-r0", "app-r1", "app-r2"]);
    expect(messages.every((message) => message.text === "")).toBe(true);
    expect(messages[2].reply.blocks.map((block) => block.kind)).toEqual(["code", "data"]);
  });

  it("Open in chat: the app imports as a new session with its app data, nothing else", async () => {
    store = await openTestStore();
    const payload = payloadOf();
    const document = appSessionExport(payload, "app-123", 1_000);
    expect(parseExportText(JSON.stringify(document)).ok).toBe(true);
    const before = await dumpDatabase(store.db);
    expect(before.sessions).toEqual([]);
    const result = await importFile(store, JSON.stringify(document));
    if (!result.ok) throw new Error(result.error.message);
    const [imported] = await listSessions(store);
    expect(imported.title).toBe("Counter");
    expect(imported.origin).toBe("imported");
    expect((await listAppData(store, imported.id)).map(({ key, json }) => ({ key, json }))).toEqual([
      { key: "count", json: "3" },
    ]);
  });
});
