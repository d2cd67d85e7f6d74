import { describe, expect, it } from "vitest";
import { isRasterImageType, looksLikeSvg, rasterImageBlob, sniffRasterImageType } from "./rasterImage";

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(
    parts.flatMap((part) => (typeof part === "string" ? [...part].map((character) => character.charCodeAt(0)) : part)),
  );
const text = (value: string) => new TextEncoder().encode(value);
/** An ISO BMFF `ftyp` box of `size` bytes: major brand, minor version, compatible brands. */
const ftyp = (major: string, ...compatible: string[]) => {
  const size = 16 + 4 * compatible.length;
  return bytes([0, 0, 0, size], "ftyp", major, [0, 0, 0, 0], ...compatible, [0, 0, 0, 8], "meta");
};

describe("sniffRasterImageType: the bytes decide, never a server's Content-Type", () => {
  it.each([
    ["PNG", bytes([0x89], "PNG", [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], "IHDR"), "image/png"],
    ["JPEG", bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], "JFIF"), "image/jpeg"],
    ["GIF87a", bytes("GIF87a", [1, 0, 1, 0]), "image/gif"],
    ["GIF89a", bytes("GIF89a", [1, 0, 1, 0]), "image/gif"],
    ["WebP", bytes("RIFF", [36, 0, 0, 0], "WEBPVP8 "), "image/webp"],
    ["AVIF (major brand)", ftyp("avif", "mif1", "miaf"), "image/avif"],
    ["AVIF sequence", ftyp("avis", "msf1"), "image/avif"],
    ["AVIF (compatible brand)", ftyp("mif1", "miaf", "avif"), "image/avif"],
  ])("%s", (_name, input, type) => {
    expect(sniffRasterImageType(input)).toBe(type);
    expect(isRasterImageType(type)).toBe(true);
  });

  it.each([
    ["SVG", text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ["SVG with an XML prolog", text('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ["HTML (whatever the server labelled it)", text("<!doctype html><script>localStorage.getItem('x')</script>")],
    ["plain text", text("hello, I am an image")],
    ["empty", new Uint8Array()],
    ["a truncated PNG signature", bytes([0x89], "PNG")],
    ["RIFF that is not WebP (WAV)", bytes("RIFF", [36, 0, 0, 0], "WAVEfmt ")],
    ["an MP4 video (ftyp without an AVIF brand)", ftyp("isom", "iso2", "mp41")],
    ["a JPEG signature after leading whitespace", bytes(" ", [0xff, 0xd8, 0xff])],
    ["HTML that starts like a GIF but is not one", text("GIF8<html><script></script>")],
  ])("%s is not a raster image", (_name, input) => {
    expect(sniffRasterImageType(input)).toBeNull();
  });

  it("an ftyp box whose size runs past the bytes is not AVIF", () => {
    const box = ftyp("avif");
    box[3] = 200;
    expect(sniffRasterImageType(box)).toBeNull();
  });
});

describe("rasterImageBlob", () => {
  it("re-wraps the bytes with the sniffed type", async () => {
    const png = bytes([0x89], "PNG", [0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const result = rasterImageBlob(png);
    expect(result).toMatchObject({ ok: true, type: "image/png" });
    if (!result.ok) return;
    expect(result.blob.type).toBe("image/png");
    expect(new Uint8Array(await result.blob.arrayBuffer())).toEqual(png);
  });

  it("refuses SVG with its own reason, and anything else as not an image", () => {
    expect(rasterImageBlob(text("\uFEFF  <svg><script/></svg>"))).toEqual({
      ok: false,
      reason: expect.stringMatching(/^it is an SVG image/),
    });
    expect(rasterImageBlob(text("<!doctype html><svg></svg>"))).toEqual({
      ok: false,
      reason: "it is not a PNG, JPEG, GIF, WebP or AVIF image",
    });
    expect(rasterImageBlob(text("just text"))).toEqual({
      ok: false,
      reason: "it is not a PNG, JPEG, GIF, WebP or AVIF image",
    });
    expect(looksLikeSvg(text("<!-- a drawing -->\n<svg/>"))).toBe(true);
  });

  it("only raster types count as images", () => {
    for (const type of [
      "image/svg+xml",
      "text/html",
      "",
      "application/xhtml+xml",
      "image/png; charset=utf-8",
      "IMAGE/PNG",
    ])
      expect(isRasterImageType(type)).toBe(false);
  });
});
