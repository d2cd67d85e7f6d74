/**
 * What an image from outside may become in the app's document. Pure.
 *
 * A blob: URL the app makes belongs to the app's origin, and opening it in a
 * tab of its own ("Open image in new tab") turns it into a document of that
 * origin with the blob's type: an SVG or HTML blob there runs its script
 * beside the API key in localStorage (the app's CSP does not reach it). So a
 * server never chooses the type: the bytes are sniffed for the raster formats
 * a browser shows as an inert image document (PNG, JPEG, GIF, WebP, AVIF),
 * re-wrapped with that type, and everything else — SVG included — is
 * refused with a reason.
 *
 * Invariants: `rasterImageBlob(bytes)` returns a Blob whose type is one of
 * RASTER_IMAGE_TYPES or null; the Content-Type a server sent is never an
 * input.
 */
import { RASTER_IMAGE_TYPES, isRasterImageType, type RasterImageType } from "./rasterTypes";

export { RASTER_IMAGE_TYPES, isRasterImageType, type RasterImageType };

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, index) => bytes[offset + index] === byte);
}

const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii("GIF87a");
const GIF89 = ascii("GIF89a");
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");
const FTYP = ascii("ftyp");
const AVIF_BRANDS = new Set(["avif", "avis"]);

/**
 * AVIF is an ISO BMFF file: a first box `ftyp` (size, "ftyp", major brand,
 * minor version, compatible brands…) naming the brand `avif` (a still) or
 * `avis` (a sequence), as major or compatible brand (mimesniff's mp4 rule).
 */
function isAvif(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, FTYP, 4)) return false;
  const boxSize = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
  if (boxSize < 16 || boxSize % 4 !== 0 || boxSize > bytes.length) return false;
  const brand = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (AVIF_BRANDS.has(brand(8))) return true;
  for (let at = 16; at + 4 <= boxSize; at += 4) if (AVIF_BRANDS.has(brand(at))) return true;
  return false;
}

/** The raster format of `bytes` by their magic numbers, or null. */
export function sniffRasterImageType(bytes: Uint8Array): RasterImageType | null {
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, JPEG)) return "image/jpeg";
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return "image/gif";
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return "image/webp";
  if (isAvif(bytes)) return "image/avif";
  return null;
}

/** Looks like SVG (for the reason only: SVG is refused like anything else that is not raster). */
export function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder("utf-8", { fatal: false })
    .decode(bytes.subarray(0, 1024))
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase();
  return (
    head.startsWith("<svg") ||
    ((head.startsWith("<?xml") || head.startsWith("<!doctype svg") || head.startsWith("<!--")) && head.includes("<svg"))
  );
}

export type RasterImageResult = { ok: true; blob: Blob; type: RasterImageType } | { ok: false; reason: string };

/** The bytes as a Blob of their sniffed raster type, or why they are not shown. */
export function rasterImageBlob(bytes: Uint8Array): RasterImageResult {
  const type = sniffRasterImageType(bytes);
  if (type) return { ok: true, type, blob: new Blob([bytes as Uint8Array<ArrayBuffer>], { type }) };
  return {
    ok: false,
    reason: looksLikeSvg(bytes)
      ? "it is an SVG image, which is not shown (SVG can carry script); only PNG, JPEG, GIF, WebP and AVIF images are"
      : "it is not a PNG, JPEG, GIF, WebP or AVIF image",
  };
}
