/**
 * A capability whose page half (its broker, rules, Session settings section)
 * loads by dynamic import, so none of it is in the JavaScript the page needs
 * before the composer works (`app.initialJsGzipKB`, bench/). The import
 * starts at once, at install; until it has arrived, what the app calls waits
 * for it, in the order it was called: a host service's answer, `open`,
 * `setStrict`, `started`, `prepareDemo`, the sign-in's return. Every rule
 * stays in the loaded module: nothing reaches the realm or is allowed before
 * it runs. What must be there at once is kept here: the kinds of ask are
 * registered at install (the loaded module asks through the same askers),
 * the services' names, `pageOpened`'s answer (`shape.pageOpened`), and the
 * remote-image policy (covers nothing until loaded, as a fresh broker's rules
 * cover nothing until a session opens). A failed import is tried again by
 * the next call.
 */
import { createElement, lazy, Suspense, useState } from "react";
import type { RemoteImagePolicy } from "../render/RemoteImage";
import type { AskKind, CapabilityHost, InstalledCapability, PersonSide, TimelinePlaceProps } from "./Capability";

export interface LazyCapabilityShape {
  /** Its host services' wire names (what the loaded module's `services` holds). */
  readonly services: readonly string[];
  /** The kinds of ask the loaded module registers through `person.asker`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind is typed by its own ask
  readonly asks?: readonly AskKind<any, string>[];
  /** It has a section of Session settings. */
  readonly settings?: boolean;
  /** It shows things in the timeline (`Timeline`). */
  readonly timeline?: boolean;
  /** It has a remote-image policy. */
  readonly remoteImages?: boolean;
  /** The loaded module's `pageOpened` answer, known without it (the module is then told in the background). */
  pageOpened?(search: string): boolean;
  /** It has `started` / `prepareDemo`. */
  readonly started?: boolean;
  readonly prepareDemo?: boolean;
}

type Install = (host: CapabilityHost) => InstalledCapability;

export function installLazily(host: CapabilityHost, shape: LazyCapabilityShape, load: () => Promise<Install>) {
  const { person } = host;
  const askers = new Map<unknown, unknown>((shape.asks ?? []).map((kind) => [kind, person.asker(kind)]));
  const lazyPerson: PersonSide = {
    asker: ((kind: unknown) => {
      if (!askers.has(kind)) throw new Error("installLazily: a kind of ask the capability did not declare");
      return askers.get(kind);
    }) as PersonSide["asker"],
    record: (entry) => person.record(entry),
    noteUntrusted: (source) => person.noteUntrusted(source),
    place: () => person.place?.() ?? { afterBlock: -1 },
    get fileChooser() {
      return person.fileChooser;
    },
    get fileReadService() {
      return person.fileReadService;
    },
    get fileOfferService() {
      return person.fileOfferService;
    },
  };
  const lazyHost: CapabilityHost = {
    person: lazyPerson,
    messages: () => host.messages(),
    setTools: (tools) => host.setTools(tools),
    ...(host.tellRealm ? { tellRealm: (method, payload) => host.tellRealm?.(method, payload) } : {}),
    ...(host.tools ? { tools: () => host.tools?.() ?? [] } : {}),
    languageModel: () => host.languageModel(),
    modelName: () => host.modelName(),
  };

  let installed: InstalledCapability | undefined;
  let loading = false;
  const waiting: { run(module: InstalledCapability): void; fail(error: unknown): void }[] = [];
  const start = () => {
    if (installed || loading) return;
    loading = true;
    load().then(
      (install) => {
        const module = install(lazyHost);
        installed = module;
        loading = false;
        // In the order they were called; a call made meanwhile waits behind them.
        while (waiting.length > 0) waiting.shift()!.run(module);
      },
      (error: unknown) => {
        loading = false;
        for (const entry of waiting.splice(0)) entry.fail(error);
      },
    );
  };
  /** `use` at once when loaded, else once loaded (after what was called before). */
  const when = <T>(use: (module: InstalledCapability) => T): T | Promise<Awaited<T>> => {
    if (installed && waiting.length === 0) return use(installed);
    const result = new Promise<Awaited<T>>((resolve, reject) => {
      waiting.push({
        run: (module) => {
          try {
            resolve(use(module) as Awaited<T>);
          } catch (error) {
            reject(error);
          }
        },
        fail: reject,
      });
    });
    start();
    return result;
  };
  const background = (result: unknown) => void Promise.resolve(result).catch(() => undefined);
  start();

  const Loaded = lazy(async () => when((module) => ({ default: module.Settings ?? (() => null) })));
  const policy = (module: InstalledCapability) => {
    if (!module.remoteImages) throw new Error("installLazily: the capability has no remote-image policy");
    return module.remoteImages;
  };
  const remoteImages: RemoteImagePolicy = {
    covers: (url) => (installed?.remoteImages ? installed.remoteImages.covers(url) : false),
    subscribe(listener) {
      let off: (() => void) | undefined;
      let cancelled = false;
      if (installed) return policy(installed).subscribe(listener);
      background(
        when((module) => {
          if (!cancelled) off = policy(module).subscribe(listener);
        }),
      );
      return () => {
        cancelled = true;
        off?.();
      };
    },
    load: async (url, signal) => when((module) => policy(module).load(url, signal)),
  };

  const module: InstalledCapability = {
    services: Object.fromEntries(
      shape.services.map((name) => [
        name,
        (payload, context) =>
          when((module) => {
            const service = module.services[name];
            if (!service) throw new Error(`installLazily: the capability does not serve ${name}`);
            return service(payload, context);
          }),
      ]),
    ),
    open: (session) => Promise.resolve(when((module) => module.open?.(session))).then(() => undefined),
    setStrict: (strict) => background(when((module) => module.setStrict?.(strict))),
    ...(shape.settings
      ? {
          Settings: function LazySettings() {
            // Loaded already (the usual case: it loads at install): drawn at once, in the first render.
            const [Direct] = useState(() => installed?.Settings);
            return Direct ? createElement(Direct) : createElement(Suspense, { fallback: null }, createElement(Loaded));
          },
        }
      : {}),
    // Nothing to show before it has loaded (what it shows comes from its calls and from `open`, which wait for
    // it); the timeline draws again when the session's audit list arrives, after `open`.
    ...(shape.timeline
      ? {
          Timeline: (props: TimelinePlaceProps) =>
            installed?.Timeline ? createElement(installed.Timeline, props) : null,
        }
      : {}),
    ...(shape.remoteImages ? { remoteImages } : {}),
    ...(shape.pageOpened
      ? {
          pageOpened(search: string) {
            if (!shape.pageOpened?.(search)) return false;
            background(when((module) => module.pageOpened?.(search)));
            return true;
          },
        }
      : {}),
    ...(shape.started ? { started: () => background(when((module) => module.started?.())) } : {}),
    ...(shape.prepareDemo
      ? { prepareDemo: () => Promise.resolve(when((module) => module.prepareDemo?.())).then(() => undefined) }
      : {}),
  };
  return module;
}
