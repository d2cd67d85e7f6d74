import { SERVICE_ERROR_CODE_PATTERN } from "../wire/constants";
import type { ServiceError, ServiceErrorCode } from "../wire/types";

/**
 * What a host service throws to answer the realm with a specific code
 * (`denied`, `not-found`, …). Any other throw reaches the realm as `failed`
 * with the error's message. Only `code` and `message` cross the boundary.
 */
export class HostServiceError extends Error {
  override readonly name = "HostServiceError";
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The wire form of whatever a service threw. */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof HostServiceError && SERVICE_ERROR_CODE_PATTERN.test(error.code)) {
    return { code: error.code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "failed", message };
}
