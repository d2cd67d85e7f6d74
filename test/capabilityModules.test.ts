/**
 * A capability is one module (src/capabilities/README.md): what each
 * declares agrees with what the realm defines and the host serves.
 */
import { describe, expect, it, vi } from "vitest";
import { CAPABILITIES, type CapabilityHost, type PersonSide } from "../src/capabilities";
import {
  AI_CALL,
  AI_NEXT,
  FILE_ATTACHMENT,
  FILE_OFFER,
  FILE_READ,
  NET_FETCH,
  TOOL_CALL,
} from "../src/wire/capabilities";
import { createCapabilityGlobals } from "../workers/realm/runtime/capabilities";
import { createRealmTools } from "../workers/realm/runtime/capabilities/tools";

function fakeHost(): CapabilityHost {
  const service = () => null;
  const person: PersonSide = {
    asker: vi.fn(() => async () => "deny" as const),
    record: () => {},
    noteUntrusted: () => {},
    policyChanged: async () => {},
    attach: vi.fn(),
    attachTools: vi.fn(),
    toolDescriptors: () => [
      {
        name: "lookup_film",
        server: "films",
        tool: "lookup_film",
        description: "Looks up a film",
        inputSchema: { type: "object" },
        readOnly: true,
      },
    ],
    fileChooser: { register: () => ({}) as never } as never,
    fileReadService: service,
    fileOfferService: service,
  };
  return {
    person,
    messages: () => [],
    setTools: () => {},
    languageModel: async () => ({ model: "demo", failure: () => "unknown" }),
    modelName: () => "the offline demo model",
  };
}

describe("capability modules", () => {
  it("have distinct names and realm globals", () => {
    const names = CAPABILITIES.map((capability) => capability.name);
    expect(new Set(names).size).toBe(names.length);
    const globals = CAPABILITIES.flatMap((capability) => capability.realmGlobals);
    expect(new Set(globals).size).toBe(globals.length);
  });

  it("declare exactly the globals their realm halves define", () => {
    const requests = () => undefined;
    const defined = Object.keys(createCapabilityGlobals(requests, createRealmTools(requests)));
    expect(CAPABILITIES.flatMap((capability) => capability.realmGlobals).sort()).toEqual(defined.sort());
  });

  it("serve every capability host service once, and attach their brokers", () => {
    const host = fakeHost();
    const served = CAPABILITIES.flatMap((capability) => Object.entries(capability.install(host).services));
    expect(served.map(([name]) => name).sort()).toEqual(
      [AI_CALL, AI_NEXT, FILE_ATTACHMENT, FILE_OFFER, FILE_READ, NET_FETCH, TOOL_CALL].sort(),
    );
    for (const [, service] of served) expect(typeof service).toBe("function");
    expect(host.person.attach).toHaveBeenCalledOnce();
    expect(host.person.attachTools).toHaveBeenCalledOnce();
    // Each kind of ask is registered by its capability, the one its view is drawn for.
    expect(vi.mocked(host.person.asker).mock.calls.map(([kind]) => kind)).toEqual(
      CAPABILITIES.flatMap((capability) => (capability.ask ? [capability.ask] : [])),
    );
  });

  it("add their lines to the system prompt (the connected tools)", () => {
    const host = fakeHost();
    const prompt = CAPABILITIES.map((capability) => capability.prompt?.after?.(host) ?? "").join("");
    expect(prompt).toContain("lookup_film");
  });

  it("name the view of each ask they raise", () => {
    expect(CAPABILITIES.flatMap((capability) => (capability.ask ? [capability.ask.capability] : [])).sort()).toEqual([
      "ai",
      "network",
      "tool",
    ]);
  });
});
