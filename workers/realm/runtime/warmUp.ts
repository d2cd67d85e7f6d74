/**
 * Pay Babel's first-use cost before READY: the bundle's evaluation loads it,
 * and the executor's own warm-up runs its transform once over samples that
 * take every path (TSX, enums, parameter properties, destructuring, await),
 * so the first statement of the first reply does not wait for lazy
 * initialisation and a cold JIT.
 */
import { warmUpTransform } from "../executor/transform";

export function warmUp(): void {
  warmUpTransform();
}
