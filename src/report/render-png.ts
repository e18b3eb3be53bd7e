import { createRequire } from "node:module";

/**
 * SVG to PNG in-process with resvg (@resvg/resvg-js: Rust, prebuilt for the
 * platform, no browser), with the Inter font files shipped in an npm package
 * (@expo-google-fonts/inter): no system font is assumed or loaded, so the
 * picture looks the same on every machine. Loaded on first use only: the CLI
 * and a daemon that never draws a picture do not pay for it.
 */

/** The font files, resolved from node_modules. */
const FONT_FILES = ["@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf", "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf"];

/** Renders an SVG document to PNG bytes, at its own size. */
export async function svgToPng(svg: string): Promise<Buffer> {
  const require = createRequire(import.meta.url);
  const fontFiles = FONT_FILES.map((f) => require.resolve(f));
  const { Resvg } = await import("@resvg/resvg-js");
  const resvg = new Resvg(svg, { font: { fontFiles, loadSystemFonts: false, defaultFontFamily: "Inter" } });
  return resvg.render().asPng();
}

/** The width and height a PNG's IHDR says, or null when `png` is not a PNG. */
export function pngSize(png: Uint8Array): { width: number; height: number } | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.length < 24 || signature.some((b, i) => png[i] !== b)) return null;
  if (Buffer.from(png.subarray(12, 16)).toString("latin1") !== "IHDR") return null;
  const view = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
}
