/**
 * What `mount()` can tell the model about options and props it would
 * otherwise ignore in silence (pure: values in, warning texts out).
 *
 *   mount({ ui, initialData: rows })           // unknown option
 *   ui: ({ data, rows }) => …                  // a prop mount never passes
 *   ui: ({ streamedData }) => streamedData.value.map(…)
 *                                              // streamedData is already the value
 */
import { streamStateOf } from "./StreamedData";
import { sourceOf } from "./Data";

export const MOUNT_OPTIONS: readonly string[] = ["ui", "data", "streamedData", "outputSchema", "callbacks", "title"];
/** The props `ui` receives (the prototype's `{ data, streamedData, output, callbacks }` plus ours). */
export const UI_PROPS: readonly string[] = ["data", "streamedData", "output", "callbacks", "errors", "submit"];

export function unknownOptionWarnings(options: object): string[] {
  const unknown = Object.keys(options).filter((key) => !MOUNT_OPTIONS.includes(key));
  if (unknown.length === 0) return [];
  const names = unknown.map((key) => JSON.stringify(key)).join(", ");
  return [
    `mount(): unknown option${unknown.length === 1 ? "" : "s"} ${names} ignored; mount takes ${MOUNT_OPTIONS.join(", ")}`,
  ];
}

/**
 * Props read by `ui` that mount never passes, found in its first parameter's
 * destructuring (`({ data, rows }) =>`, `function ({ a: b, c = 1 })`), and
 * `streamedData.value`, which is undefined now that `streamedData` is the
 * plain value. Anything not written that way is not guessed at.
 */
export function uiPropWarnings(ui: unknown): string[] {
  if (typeof ui !== "function") return [];
  let source: string;
  try {
    source = Function.prototype.toString.call(ui);
  } catch {
    return [];
  }
  const warnings: string[] = [];
  const pattern = /^\s*(?:async\s*)?(?:function\b[^(]*)?\(\s*\{([^{}()]*)\}/.exec(source);
  if (pattern) {
    const names = pattern[1]
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "" && !part.startsWith("..."))
      .map((part) => /^([A-Za-z_$][\w$]*)/.exec(part)?.[1])
      .filter((name): name is string => name !== undefined);
    const unknown = names.filter((name) => !UI_PROPS.includes(name));
    if (unknown.length > 0) {
      warnings.push(
        `mount(): ui reads prop${unknown.length === 1 ? "" : "s"} ${unknown.map((name) => JSON.stringify(name)).join(", ")} that mount never passes (undefined); ui receives ${UI_PROPS.join(", ")}`,
      );
    }
  }
  if (/\bstreamedData\s*\??\.\s*(?:value|streaming|done)\b/.test(source)) {
    warnings.push(
      "mount(): ui gets streamedData as the current plain value of the StreamedData (an array stays an array), so streamedData.value/.streaming/.done are undefined; use streamedData itself, or read the StreamedData object you created",
    );
  }
  return warnings;
}

/**
 * The `streamedData` prop: the current plain value of the StreamedData given
 * to mount (undefined until its fence starts), or of each StreamedData in an
 * object of them (`streamedData: { sales, costs }`). Anything else as given.
 * Reading it inside a render tracks it, so the mount re-renders as it grows.
 */
export function plainStreamedValue(value: unknown): unknown {
  const state = streamStateOf(value);
  if (state) return state.read();
  if (typeof value !== "object" || value === null || Array.isArray(value) || sourceOf(value)) return value;
  const members = Object.entries(value);
  if (!members.some(([, member]) => streamStateOf(member))) return value;
  return Object.fromEntries(
    members.map(([key, member]) => {
      const memberState = streamStateOf(member);
      return [key, memberState ? memberState.read() : member];
    }),
  );
}
