/**
 * Save bytes that came from outside the app (a file offered by `download()`
 * in model code) to the person's disk.
 *
 * The blob: URL made here belongs to the app's origin. With the code's own
 * type (`text/html`, `image/svg+xml`), that URL opened as a page — a browser
 * that ignores `download`, a tab that follows the link — would be a document
 * of the app's origin running the code's script beside the API key. So the
 * blob is always `application/octet-stream`: the browser can only save it.
 * The name (with its extension) comes from the `download` attribute, and the
 * type the code asked for is not needed for that.
 */
export const SAVED_FILE_TYPE = "application/octet-stream";

export function saveFile(name: string, data: Uint8Array): void {
  const url = URL.createObjectURL(new Blob([data as Uint8Array<ArrayBuffer>], { type: SAVED_FILE_TYPE }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
