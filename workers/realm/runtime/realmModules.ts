/**
 * The modules a model may `import` (or `require`): each is something the
 * realm already has as globals, so an import only binds a name. Nothing can
 * be loaded or installed; anything else gets one message that says what is
 * there instead.
 *
 *   react                          React (default, namespace), its exports by name
 *   react-dom, react-dom/client    ReactDOM (createRoot, render, …)
 *   zod                            z (default, namespace, `z`), zod's exports by name
 *   recharts                       the kit's chart components by name
 *   lucide-react                   any icon by name: `Star` → <StarIcon />
 *   @/components/ui/<name>, components/ui/<name>   the kit's shadcn/ui components
 */
import { ICON_SUFFIX, KIT_COMPONENTS } from "../../../src/wire/mount";
import type { ModuleResolution } from "../executor/realmHooks";

const FIRST_CHART = KIT_COMPONENTS.indexOf("ResponsiveContainer");
const CHART_NAMES: readonly string[] = KIT_COMPONENTS.slice(FIRST_CHART, KIT_COMPONENTS.indexOf("Icon"));
const UI_NAMES: readonly string[] = KIT_COMPONENTS.slice(0, FIRST_CHART);

/** `@/components/ui/card`, `components/ui/card`, `./components/ui/card.tsx`, `src/components/ui/card`. */
const UI_PATH = /^(?:@\/|~\/|(?:\.{1,2}\/)+)?(?:src\/)?components\/ui\/[A-Za-z0-9-]+(?:\.[jt]sx?)?$/;

export const AVAILABLE_MODULES =
  "react, react-dom, react-dom/client, zod, recharts, lucide-react and the shadcn/ui kit (@/components/ui/<name>)";

/** The message for a module the realm does not have. */
export function unknownModuleMessage(specifier: string): string {
  return (
    `Cannot import ${JSON.stringify(specifier)}: the realm cannot load or install packages. ` +
    `What it has needs no import (all are globals already): ${AVAILABLE_MODULES}.`
  );
}

export type RealmModules = (specifier: string, imported: string) => ModuleResolution;

/** `globals`: the realm's globals (React, ReactDOM, z, the kit, …), read at each call. */
export function createRealmModules(globals: () => Record<string, unknown>): RealmModules {
  const fromObject = (module: string, target: unknown, imported: string): ModuleResolution => {
    if (imported === "default" || imported === "*") return { value: target };
    if (
      target !== null &&
      (typeof target === "object" || typeof target === "function") &&
      imported in (target as object)
    ) {
      return { value: (target as Record<string, unknown>)[imported] };
    }
    return { error: `${JSON.stringify(module)} has no export named \`${imported}\`` };
  };
  const fromList = (module: string, names: readonly string[], imported: string): ModuleResolution => {
    const all = globals();
    if (imported === "default" || imported === "*")
      return { value: Object.freeze(Object.fromEntries(names.map((name) => [name, all[name]]))) };
    if (names.includes(imported)) return { value: all[imported] };
    return { error: `${JSON.stringify(module)} has no \`${imported}\` in the realm; available: ${names.join(", ")}` };
  };
  return (specifier, imported) => {
    const all = globals();
    switch (specifier) {
      case "react":
        return fromObject(specifier, all.React, imported);
      case "react-dom":
      case "react-dom/client":
        return fromObject(specifier, all.ReactDOM, imported);
      case "zod":
        return imported === "z" ? { value: all.z } : fromObject(specifier, all.z, imported);
      case "recharts":
        return fromList(specifier, CHART_NAMES, imported);
      case "lucide-react":
        return lucideIcon(imported);
      default:
        if (UI_PATH.test(specifier)) return fromList(specifier, UI_NAMES, imported);
        return { error: unknownModuleMessage(specifier) };
    }
  };
}

/** Icons are kit component names: `Star` (or `StarIcon`) → "StarIcon", which the host renders as lucide's Star. */
function lucideIcon(imported: string): ModuleResolution {
  if (imported === "default" || imported === "*") {
    return {
      value: new Proxy(Object.freeze({}), {
        get: (_, name) => (typeof name === "string" && /^[A-Z]/.test(name) ? iconName(name) : undefined),
      }),
    };
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(imported))
    return { error: `"lucide-react": \`${imported}\` is not an icon name (icons are PascalCase, e.g. Star)` };
  return { value: iconName(imported) };
}

function iconName(name: string): string {
  // `Icon` is the kit's <Icon name="…" />.
  return name.endsWith(ICON_SUFFIX) ? name : `${name}${ICON_SUFFIX}`;
}
