/**
 * Just enough PNG for the screenshot test: decodes what Chromium writes (8-bit RGB or RGBA, not
 * interlaced), and reduces an image to a coarse grid of mean luminances, which two renderings of
 * the same layout share even when their fonts differ a little.
 */
import { inflateSync } from 'node:zlib';

/** A decoded image: `width × height` pixels, 4 bytes (RGBA) each. */
export interface Image {
  readonly width: number;
  readonly height: number;
  readonly rgba: Uint8Array;
}

const SIGNATURE = '89504e470d0a1a0a';

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Decodes a PNG.
 *
 * @param png - the file's bytes
 * @returns the pixels
 * @throws Error for anything but 8-bit RGB or RGBA without interlacing
 */
export function decodePng(png: Uint8Array): Image {
  const bytes = Buffer.from(png);
  if (bytes.subarray(0, 8).toString('hex') !== SIGNATURE) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, color, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) {
        throw new Error(
          `unsupported PNG: depth ${depth}, color type ${color}, interlace ${interlace}`,
        );
      }
      channels = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      data.push(body);
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const corner = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const predicted =
        filter === 0
          ? 0
          : filter === 1
            ? left
            : filter === 2
              ? up
              : filter === 3
                ? (left + up) >> 1
                : paeth(left, up, corner);
      pixels[y * stride + x] = (line[x]! + predicted) & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgba[i * 4] = pixels[i * channels]!;
    rgba[i * 4 + 1] = pixels[i * channels + 1]!;
    rgba[i * 4 + 2] = pixels[i * channels + 2]!;
    rgba[i * 4 + 3] = channels === 4 ? pixels[i * channels + 3]! : 255;
  }
  return { width, height, rgba };
}

/**
 * The image as a grid of cells, each the mean luminance (0 to 255) of its pixels.
 *
 * @param image - the image
 * @param cell - the cells' side, in pixels
 * @returns rows of cells
 */
export function luminanceGrid(image: Image, cell: number): number[][] {
  const rows: number[][] = [];
  for (let top = 0; top + cell <= image.height; top += cell) {
    const row: number[] = [];
    for (let left = 0; left + cell <= image.width; left += cell) {
      let sum = 0;
      for (let y = top; y < top + cell; y++) {
        for (let x = left; x < left + cell; x++) {
          const i = (y * image.width + x) * 4;
          sum +=
            0.2126 * image.rgba[i]! + 0.7152 * image.rgba[i + 1]! + 0.0722 * image.rgba[i + 2]!;
        }
      }
      row.push(sum / (cell * cell));
    }
    rows.push(row);
  }
  return rows;
}

/** How many distinct colours the image has, up to `limit`. */
export function distinctColors(image: Image, limit = 1000): number {
  const seen = new Set<number>();
  for (let i = 0; i < image.rgba.length && seen.size < limit; i += 4) {
    seen.add((image.rgba[i]! << 16) | (image.rgba[i + 1]! << 8) | image.rgba[i + 2]!);
  }
  return seen.size;
}
