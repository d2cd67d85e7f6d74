/**
 * What the first visit stores for offline use, in MB (10^6 bytes): the
 * service worker's precache (src/sw/), as `npm run build` prints it
 * ("precache N entries (K KiB)"). Said in Settings and the README;
 * e2e/ui.test.ts adds up the built precache and fails when this is more
 * than 0.5 MB off, so a change that grows the app updates the words.
 */
export const OFFLINE_STORAGE_MB = 8.2;
