/**
 * The realm's stand-in for `@jridgewell/trace-mapping` (see
 * vite.realm.config.ts). @babel/generator reads a source map only when given
 * `inputSourceMap`, which the realm never passes (transform.ts maps
 * generated → original lines itself), so the ~4 KB gzipped map reader stays
 * out of the bundle. Reaching this would be a bug: it says so.
 */
export class TraceMap {
  constructor() {
    throw new Error("the realm's code generator reads no input source maps");
  }
}

export function originalPositionFor(): never {
  throw new Error("the realm's code generator reads no input source maps");
}
