/**
 * How much the app keeps in this browser, for the storage-full banner
 * (`navigator.storage.estimate`: the origin's usage and quota, in bytes).
 */

export interface StorageEstimateLike {
  usage?: number;
  quota?: number;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** "Livemark uses 48.2 MB of the 50.0 MB this browser allows it", or undefined when the browser does not say. */
export function describeUsage(estimate: StorageEstimateLike | undefined): string | undefined {
  if (!estimate || typeof estimate.usage !== "number" || !Number.isFinite(estimate.usage)) return undefined;
  const quota =
    typeof estimate.quota === "number" && Number.isFinite(estimate.quota) && estimate.quota > 0
      ? ` of the ${size(estimate.quota)} this browser allows it`
      : "";
  return `Livemark uses ${size(estimate.usage)}${quota}`;
}

/** The browser's estimate, described; undefined where `navigator.storage.estimate` is missing or fails. */
export async function storageUsage(): Promise<string | undefined> {
  const storage = (globalThis.navigator as Navigator | undefined)?.storage;
  if (typeof storage?.estimate !== "function") return undefined;
  try {
    return describeUsage(await storage.estimate());
  } catch {
    return undefined;
  }
}

/** The storage-full banner's words, with how much the app uses when the browser says. */
export function storageFullText(usage: string | undefined): string {
  return `Storage is full${usage ? `: ${usage}` : ""}. Your latest changes are not saved yet; this tab keeps them and saves them as soon as there is room. Export this session to keep it as a file, or free space: Delete forever in Recently deleted.`;
}
