import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** One PNG chunk: length, type, data, CRC-32 of type and data (PNG spec §5.3). */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A real PNG of `side` × `side` random RGB pixels: random pixels do not compress, so the file is
 * about 3 × side² bytes (side 100: ~30 KB; side 190: ~108 KB), and any image decoder reads it.
 */
export function randomPng(side: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const row = side * 3 + 1;
  const raw = randomBytes(row * side);
  for (let y = 0; y < side; y++) raw[y * row] = 0; // filter type 0 on each scanline
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
