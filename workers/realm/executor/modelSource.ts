/**
 * `String(fn)` / `fn.toString()` of a function the model wrote returns the
 * model's source, not the compiled text (`function bump() {$$r.tick(0);$$s.n++}`).
 *
 * Every compiled function starts with its entry tick, `$$r.tick(site)` or
 * `$$r.ea(site)`, and each function site knows the function's offsets in its
 * statement. Among the sites in a function's text the outermost function (the
 * longest source) is the function itself: nested ones lie inside it. A class
 * has no site of its own; its text loses the compiled additions instead.
 *
 * `Function.prototype.toString` is replaced once per realm (per process in
 * Node tests); it asks the most recently created executor, the realm's only
 * one. Other functions' text is left as the engine gives it.
 */
import { modelText } from "./formatConsole";

type SourceOf = (site: number) => string | undefined;

let sourceOf: SourceOf | undefined;
let installed = false;

const ENTRY_SITE = /\$\$r\.(?:tick|ea)\((\d+)\)/g;

export function installModelSource(lookup: SourceOf): void {
  sourceOf = lookup;
  if (installed) return;
  installed = true;
  const engineToString = Function.prototype.toString;
  const toString = function toString(this: unknown): string {
    const text = engineToString.call(this as () => void);
    if (sourceOf === undefined || !text.includes("$$r.")) return text;
    if (text.startsWith("class")) return stripCompiled(text);
    let best: string | undefined;
    for (const match of text.matchAll(ENTRY_SITE)) {
      const source = sourceOf(Number(match[1]));
      if (source !== undefined && (best === undefined || source.length > best.length)) best = source;
    }
    return best ?? stripCompiled(text);
  };
  try {
    Object.defineProperty(Function.prototype, "toString", {
      value: toString,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  } catch {
    // Intrinsics frozen before the executor started: engine text it is.
  }
}

/** The compiled additions taken out of `text`, for code without a site of its own. */
function stripCompiled(text: string): string {
  return modelText(
    text
      .replace(/const \$\$c = \$\$r\.ea\(\d+\);\s*/g, "")
      .replace(/\$\$r\.tick\(\d+\)[;,]\s*/g, "")
      .replace(/\$\$r\.re\(\$\$c, (await [^)]*)\)/g, "$1"),
  );
}
