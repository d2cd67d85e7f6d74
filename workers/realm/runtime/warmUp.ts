/**
 * Pay Babel's first-use cost right after READY (serveRealm.ts), before the
 * host's first message is handled: the bundle's evaluation loads Babel, and
 * the executor's own warm-up runs its transform once over a statement
 * made of what first fences contain (TypeScript, JSX, a template, an arrow,
 * await: WARM_UP_SAMPLE in transform.ts), so the first statement of the
 * first reply does not wait for lazy initialisation and a cold JIT.
 */
import { warmUpTransform } from "../executor/transform";

export function warmUp(): void {
  warmUpTransform();
}
