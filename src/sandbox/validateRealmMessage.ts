/**
 * The host's gate for everything the realm sends: the realm → host table's
 * own check (src/wire/types.ts `realmMessageSchema`). The realm runs
 * model-written code, so a message may be anything structured clone can
 * carry: wrong types, extra fields, Maps, huge strings, cycles. Each valid
 * message is rebuilt from scratch with only the declared fields (nothing of
 * the original object reaches the app); anything else is rejected with a
 * reason. One message is cloned and checked in one task: the realm sends at
 * most MAX_OPS_PER_MESSAGE ops (or snapshot nodes) per mount message, a
 * bigger first render in parts; a bigger message is rejected whole.
 *
 * Pure: no I/O, no state.
 */
import type { CheckResult } from "../wire/schema";
import { checkRealmMessage, type RealmMessage } from "../wire/types";

export type ValidationResult = CheckResult<RealmMessage>;

/** Check one message from the realm; on success the result shares nothing with the input. */
export function validateRealmMessage(value: unknown): ValidationResult {
  return checkRealmMessage(value);
}
