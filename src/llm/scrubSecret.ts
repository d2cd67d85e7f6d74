/**
 * Remove a secret (the API key) from text shown, saved or exported: servers
 * echo keys in error messages ("Incorrect API key provided: …"), and a key
 * without a well-known prefix escapes `redact`'s patterns.
 */
export function scrubSecret(text: string, secret: string): string {
  const key = secret.trim();
  // Very short "keys" (a local server's placeholder) would blank ordinary words.
  if (key.length < 8) return text;
  return text.split(key).join("[redacted key]");
}

/** The same for every string field of an error description. */
export function scrubDescription<T extends { message: string; details?: string }>(description: T, secret: string): T {
  return {
    ...description,
    message: scrubSecret(description.message, secret),
    ...(description.details !== undefined ? { details: scrubSecret(description.details, secret) } : {}),
  };
}
