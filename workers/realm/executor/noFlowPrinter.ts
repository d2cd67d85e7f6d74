/**
 * The realm's stand-in for @babel/generator's Flow printers
 * (`lib/generators/flow.js`, ~2 KB gzipped; see vite.realm.config.ts). The
 * realm parses with the `typescript` and `jsx` plugins only, so no Flow node
 * can reach the generator. The one helper other printers call, `_variance`
 * (class members), prints a Flow variance sign, which only Flow parses.
 */
export function _variance(node: { variance?: unknown }): void {
  if (node.variance) throw new Error("the realm's code generator prints no Flow syntax");
}
