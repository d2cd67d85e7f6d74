/**
 * The host side's error catalog. Promises returned by the realm host reject
 * with a RealmHostError; callers branch on `code`, never on the message.
 */
export type RealmHostErrorCode =
  /** A request (flush, abort) got no answer within its timeout. */
  | "timeout"
  /** The caller cancelled the request (AbortSignal). */
  | "cancelled"
  /** The realm was reset while the request was pending; its state is gone. */
  | "realm-reset"
  /** The host was disposed. */
  | "disposed"
  /** `generated/realm.js` could not be fetched. */
  | "bundle-unavailable"
  /** The realm speaks another WIRE_VERSION (a stale realm.js next to a newer app). */
  | "version-mismatch"
  /** The realm did not come up after repeated attempts. */
  | "boot-failed";

export class RealmHostError extends Error {
  override readonly name = "RealmHostError";
  readonly code: RealmHostErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(
    code: RealmHostErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.details) this.details = options.details;
  }
}

export function isRealmHostError(value: unknown, code?: RealmHostErrorCode): value is RealmHostError {
  return value instanceof RealmHostError && (code === undefined || value.code === code);
}
