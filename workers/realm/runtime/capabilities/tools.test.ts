/**
 * The realm's `tools` global over its real request path (createHostRequests):
 * arguments are checked against the tool's schema before anything is sent,
 * results resolve with structured content or text, errors keep their codes,
 * and the list follows what the host pushes.
 */
import { describe, expect, it } from "vitest";
import { TOOL_CALL, type ToolDescriptor } from "../../../../src/wire/capabilities";
import { CALL, RESULT } from "../../../../src/wire/constants";
import type { JsonValue } from "../../../../src/wire/mount";
import type { RealmMessage } from "../../../../src/wire/types";
import { createHostRequests, type HostRequests } from "../createHostRequests";
import { createRealmTools, ToolError } from "./tools";

const LOOKUP: ToolDescriptor = {
  name: "lookup_film",
  server: "films",
  tool: "lookup_film",
  description: "Look up a film",
  inputSchema: {
    type: "object",
    properties: { title: { type: "string", minLength: 1 }, year: { type: "integer" } },
    required: ["title"],
    additionalProperties: false,
  },
  readOnly: true,
};
const ADD: ToolDescriptor = { ...LOOKUP, name: "add_to_watchlist", tool: "add_to_watchlist", readOnly: false };

type Answer = { ok: true; value: JsonValue } | { ok: false; error: { code: string; message: string } };

function setUp(
  answer: (payload: JsonValue) => Answer = () => ({
    ok: true,
    value: { structured: { title: "Dune", year: 2021 }, text: "{}" },
  }),
) {
  const sent: { service: string; payload: JsonValue }[] = [];
  let requests: HostRequests;
  requests = createHostRequests((message: RealmMessage) => {
    if (message.type !== CALL) return;
    sent.push({ service: message.method, payload: message.payload });
    const result = answer(message.payload);
    queueMicrotask(() => requests.receive({ type: RESULT, id: message.id, ...result }));
  });
  const realmTools = createRealmTools(() => requests);
  realmTools.set([LOOKUP, ADD]);
  const tools = realmTools.tools as Record<string, (args?: unknown) => Promise<unknown>> & { list(): unknown[] };
  return { tools, sent, realmTools };
}

describe("tools in the realm", () => {
  it("lists the pushed tools with names, descriptions and input schemas", () => {
    const { tools } = setUp();
    expect(tools.list()).toEqual([
      {
        name: "lookup_film",
        server: "films",
        description: "Look up a film",
        inputSchema: LOOKUP.inputSchema,
        readOnly: true,
      },
      {
        name: "add_to_watchlist",
        server: "films",
        description: "Look up a film",
        inputSchema: ADD.inputSchema,
        readOnly: false,
      },
    ]);
    expect(Object.keys(tools)).toEqual(["lookup_film", "add_to_watchlist"]);
    expect("lookup_film" in tools).toBe(true);
  });

  it("a call sends the name and a JSON copy of the arguments, and resolves with the structured content", async () => {
    const { tools, sent } = setUp();
    await expect(tools.lookup_film({ title: "Dune", when: undefined })).resolves.toEqual({ title: "Dune", year: 2021 });
    expect(sent).toEqual([{ service: TOOL_CALL, payload: { name: "lookup_film", arguments: { title: "Dune" } } }]);
  });

  it("resolves with the text when the tool returned no structured content", async () => {
    const { tools } = setUp(() => ({ ok: true, value: { structured: null, text: "Watch list: Dune" } }));
    await expect(tools.add_to_watchlist({ title: "Dune" })).resolves.toBe("Watch list: Dune");
  });

  it("bad arguments are refused in the realm, naming the problem, and nothing is sent", async () => {
    const { tools, sent } = setUp();
    const wrongType = await tools.lookup_film({ title: 42 }).catch((error: unknown) => error);
    expect(wrongType).toBeInstanceOf(ToolError);
    expect((wrongType as ToolError).code).toBe("invalid-arguments");
    expect((wrongType as Error).message).toMatch(
      /tools\.lookup_film was not called: title: expected string, received number/,
    );
    expect((wrongType as Error).message).toContain("{ title: string, year?: integer }");
    await expect(tools.lookup_film({})).rejects.toMatchObject({ code: "invalid-arguments" });
    await expect(tools.lookup_film({ title: "Dune", extra: 1 })).rejects.toMatchObject({ code: "invalid-arguments" });
    await expect(tools.lookup_film({ title: "Dune", year: 20.5 })).rejects.toMatchObject({ code: "invalid-arguments" });
    await expect(tools.lookup_film("Dune")).rejects.toMatchObject({ code: "invalid-arguments" });
    await expect(tools.lookup_film({ title: 1n })).rejects.toMatchObject({ code: "invalid-arguments" });
    expect(sent).toEqual([]);
  });

  it("an isError result rejects with the tool's message; a denial is a CapabilityError", async () => {
    const failing = setUp(() => ({ ok: false, error: { code: "tool-error", message: 'No film titled "Nope"' } }));
    await expect(failing.tools.lookup_film({ title: "Nope" })).rejects.toMatchObject({
      name: "ToolError",
      code: "tool-error",
      message: 'No film titled "Nope"',
    });
    const denied = setUp(() => ({
      ok: false,
      error: { code: "denied", message: "The person denied this tool call: films/lookup_film." },
    }));
    await expect(denied.tools.lookup_film({ title: "Dune" })).rejects.toMatchObject({
      name: "CapabilityError",
      message: "The person denied this tool call: films/lookup_film.",
    });
  });

  it("follows the host's list: a removed tool is gone, a qualified name is a property", async () => {
    const { tools, realmTools } = setUp();
    realmTools.set([
      { ...LOOKUP, name: "films/lookup_film" },
      { ...LOOKUP, name: "other/lookup_film", server: "other" },
    ]);
    expect(tools.lookup_film).toBeUndefined();
    expect(typeof tools["films/lookup_film"]).toBe("function");
    expect((tools.list() as { name: string }[]).map((tool) => tool.name)).toEqual([
      "films/lookup_film",
      "other/lookup_film",
    ]);
    realmTools.set([]);
    expect(Object.keys(tools)).toEqual([]);
  });

  it("is read-only: code cannot replace or add a tool", () => {
    const { tools } = setUp();
    expect(() => {
      "use strict";
      (tools as Record<string, unknown>).lookup_film = () => "forged";
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(tools, "x", { value: 1 })).toThrow(TypeError);
    expect(() => delete (tools as Record<string, unknown>).lookup_film).toThrow(TypeError);
    expect(Object.getPrototypeOf(tools)).toBeNull();
  });
});
