/**
 * The error model code sees when it reaches for a capability the session has
 * not granted, or the person refused. It is an ordinary catchable Error with
 * a stable `code`, so the executor reports it to the model as
 * `CapabilityError: network capability not granted: GET https://…` (or the
 * host's own sentence, e.g. "The person denied this request: …") and the
 * model can adapt.
 */
export type Capability = "network" | "file" | "tool" | "ai";

export class CapabilityError extends Error {
  override readonly name = "CapabilityError";
  readonly code: string = "capability-denied";
  readonly capability: Capability;

  constructor(capability: Capability, action: string, hint?: string) {
    super(`${capability} capability not granted: ${action}${hint ? ` (${hint})` : ""}`);
    this.capability = capability;
  }

  /** The host's own words (a denial, the network off), with the host's code (`denied`, `network-off`). */
  static fromHost(capability: Capability, code: string, message: string): CapabilityError {
    const error = new CapabilityError(capability, "");
    error.message = message;
    Object.defineProperty(error, "code", { value: code === "denied" ? "capability-denied" : code, enumerable: false });
    return error;
  }
}
