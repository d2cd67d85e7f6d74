/**
 * Pay Babel's first-use cost before READY: the bundle's evaluation loads it,
 * and one transform of a small TSX statement compiles the parser, the
 * TypeScript and JSX plugins and the generator's hot paths, so the first
 * statement of the first reply does not wait for them.
 */
import { transform } from "@babel/standalone";

const SAMPLE = "const warm: number[] = [1, 2].map((n) => n * 2); const view = <div className={`n${warm[0]}`}>{warm}</div>;";

export function warmUp(): void {
  transform(SAMPLE, { filename: "warm-up.tsx", presets: ["typescript", "react"], sourceType: "script" });
}
