/**
 * A capability is one module (src/capabilities/README.md): what each
 * declares agrees with what the realm defines and the host serves, and a
 * module with Session settings of its own needs nothing in src/session or
 * src/ui.
 */
import "fake-indexeddb/auto";
import { createElement, useSyncExternalStore } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { CAPABILITIES, type Capability, type CapabilityHost, type PersonSide } from "../src/capabilities";
import type { OpenSession } from "../src/capabilities/Capability";
import { DEFAULT_SETTINGS } from "../src/llm/settings";
import type { RealmHost } from "../src/sandbox";
import { createApp } from "../src/session/createApp";
import { createSession, getSession } from "../src/store/sessions";
import { CapabilitiesContext, CapabilityViewsContext } from "../src/ui/capabilities";
import { SessionSettingsDialog } from "../src/ui/SessionSettingsDialog";
import {
  AI_CALL,
  AI_NEXT,
  FILE_ATTACHMENT,
  FILE_OFFER,
  FILE_READ,
  NET_FETCH,
  STORAGE_DELETE,
  STORAGE_GET,
  STORAGE_KEYS,
  STORAGE_SET,
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
    fileChooser: { register: () => ({}) as never } as never,
    fileReadService: service,
    fileOfferService: service,
  };
  return {
    person,
    messages: () => [],
    setTools: () => {},
    tools: () => [
      {
        name: "lookup_film",
        server: "films",
        tool: "lookup_film",
        description: "Looks up a film",
        inputSchema: { type: "object" },
        readOnly: true,
      },
    ],
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

  it("serve every capability host service once, and draw their own Session settings", () => {
    const host = fakeHost();
    const installed = CAPABILITIES.map((capability) => capability.install(host));
    const served = installed.flatMap((module) => Object.entries(module.services));
    expect(served.map(([name]) => name).sort()).toEqual(
      [
        AI_CALL,
        AI_NEXT,
        FILE_ATTACHMENT,
        FILE_OFFER,
        FILE_READ,
        NET_FETCH,
        TOOL_CALL,
        STORAGE_GET,
        STORAGE_SET,
        STORAGE_DELETE,
        STORAGE_KEYS,
      ].sort(),
    );
    for (const [, service] of served) expect(typeof service).toBe("function");
    // Network, tools, storage and ai draw their sections of Session settings, and load their rules or data when a session opens.
    expect(
      CAPABILITIES.filter((_, index) => installed[index].Settings && installed[index].open).map(({ name }) => name),
    ).toEqual(["network", "tools", "storage", "ai"]);
    // Each kind of ask is registered by its capability, the one its view is drawn for.
    expect(vi.mocked(host.person.asker).mock.calls.map(([kind]) => kind)).toEqual(
      CAPABILITIES.flatMap((capability) => (capability.ask ? [capability.ask] : [])),
    );
  });

  it("add their lines to the system prompt (the connected tools, once the tools module has loaded)", async () => {
    const host = fakeHost();
    // The tools' lines come from their module, which loads at install (open waits for it).
    await Promise.all(CAPABILITIES.map((capability) => capability.install(host).open?.(undefined)));
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

/** A stand-in realm: what createApp calls on it, doing nothing. */
function standInRealm(): RealmHost {
  return {
    provide: () => () => undefined,
    subscribe: () => () => undefined,
    subscribeMounts: () => () => undefined,
    setTools: () => undefined,
    sendUiEvent: () => undefined,
    reset: async () => undefined,
    restart: async () => undefined,
    abort: () => undefined,
    flush: async () => undefined,
    beginReply: () => undefined,
    sendBlock: () => undefined,
    status: () => ({ realm: "ready" }),
  } as unknown as RealmHost;
}

describe("a capability module of its own", () => {
  /**
   * A made-up capability that no file in src/session or src/ui names: a
   * per-session budget, kept in its own settings, with its own section of
   * Session settings.
   */
  function budgetCapability() {
    let open: OpenSession | undefined;
    let limit = 0;
    const listeners = new Set<() => void>();
    const opened: (number | undefined)[] = [];
    const setLimit = async (value: number) => {
      limit = value;
      for (const listener of listeners) listener();
      await open?.save({ limit: value });
    };
    function BudgetSettings() {
      const shown = useSyncExternalStore(
        (listener) => (listeners.add(listener), () => listeners.delete(listener)),
        () => limit,
        () => limit,
      );
      return createElement("section", { "aria-label": "Budget" }, `Budget: ${shown} calls`);
    }
    const capability: Capability = {
      name: "budget",
      realmGlobals: [],
      install: () => ({
        services: {},
        open(session) {
          open = session;
          const saved = session?.saved as { limit?: number } | undefined;
          limit = saved?.limit ?? 10;
          if (session) opened.push(saved?.limit);
          for (const listener of listeners) listener();
        },
        Settings: BudgetSettings,
      }),
      summary: (used) => (used.some((entry) => entry.capability === "budget") ? "budget: used" : undefined),
    };
    return { capability, setLimit, opened, current: () => open };
  }

  it("is installed, opened with its saved settings, saves them and draws its section, with no edit in src/session or src/ui", async () => {
    const budget = budgetCapability();
    const app = createApp({
      settings: () => ({ ...DEFAULT_SETTINGS, maxTurns: 10 }),
      capabilities: [...CAPABILITIES, budget.capability],
      realm: standInRealm(),
      page: {
        location: { href: "https://livemark.test/", search: "", pathname: "/", hash: "", protocol: "https:" },
        history: { state: null, replaceState: () => undefined },
      },
    });
    await app.started;
    await vi.waitFor(() => expect(budget.current()).toBeDefined());
    const first = budget.current()!.session.id;
    await budget.setLimit(3);
    const store = app.controller.storeHandle()!;
    expect((await getSession(store, first))?.settings.capabilities).toEqual({ budget: { limit: 3 } });

    // Its section is drawn in the dialog with the others', in the list's order, before the audit list.
    const dialog = () =>
      renderToStaticMarkup(
        createElement(
          CapabilitiesContext.Provider,
          { value: app.capabilities },
          createElement(
            CapabilityViewsContext.Provider,
            { value: { sections: app.sections, summaries: [] } },
            createElement(SessionSettingsDialog, { onClose: () => undefined }),
          ),
        ),
      );
    expect(app.sections.map((section) => section.name)).toEqual(["network", "tools", "storage", "ai", "budget"]);
    // The built-in modules' code loads by dynamic import (src/capabilities/installLazily.ts): their sections are
    // drawn once it has arrived.
    await vi.waitFor(() => expect(dialog()).toContain("Granted hosts"));
    const html = dialog();
    const at = (text: string) => html.indexOf(text);
    expect(at("Budget: 3 calls")).toBeGreaterThan(at("Granted hosts"));
    expect(at("Granted hosts")).toBeGreaterThan(-1);
    expect(at("Audit list")).toBeGreaterThan(at("Budget: 3 calls"));
    expect(at("Strict mode")).toBeGreaterThan(-1);

    // Another session starts from nothing saved; the first one's setting comes back with it.
    await app.controller.open((await createSession(store)).id);
    await vi.waitFor(() => expect(budget.current()?.session.id).not.toBe(first));
    expect(dialog()).toContain("Budget: 10 calls");
    await app.controller.open(first);
    await vi.waitFor(() => expect(budget.current()?.session.id).toBe(first));
    expect(dialog()).toContain("Budget: 3 calls");
    expect(budget.opened).toEqual([undefined, undefined, 3]);
  });
});
