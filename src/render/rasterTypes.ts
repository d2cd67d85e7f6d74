/**
 * The raster image types the app shows (rasterImage.ts sniffs bytes into
 * them): apart, so a view that only checks a type does not load the sniffer.
 */
export const RASTER_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"] as const;
export type RasterImageType = (typeof RASTER_IMAGE_TYPES)[number];

const RASTER_SET: ReadonlySet<string> = new Set(RASTER_IMAGE_TYPES);

/** A blob the app may show as an image (and so hand out as a blob: URL of its origin). */
export function isRasterImageType(type: string): type is RasterImageType {
  return RASTER_SET.has(type);
}
