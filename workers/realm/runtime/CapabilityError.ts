/**
 * The error model code sees when it reaches for a capability the session has
 * not granted. It is an ordinary catchable Error with a stable `code`, so the
 * executor reports it to the model as `CapabilityError: network capability
 * not granted: GET https://…` and the model can adapt.
 */
export type Capability = "network";

export class CapabilityError extends Error {
  override readonly name = "CapabilityError";
  readonly code = "capability-denied";
  readonly capability: Capability;

  constructor(capability: Capability, action: string, hint?: string) {
    super(`${capability} capability not granted: ${action}${hint ? ` (${hint})` : ""}`);
    this.capability = capability;
  }
}
