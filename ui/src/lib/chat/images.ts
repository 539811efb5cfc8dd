// Images pasted, dropped or picked into the composer, as the wire's base64 `ImageContent`.
import type { ImageContent } from '../../ipc/wire';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** Providers reject larger images; say so before sending. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The image types by extension, for a file whose type the system did not name. */
const IMAGE_EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

export class ImageRejected extends Error {}

/** Bytes as base64, in chunks: `String.fromCharCode(...bytes)` overflows the stack on big files,
 * and a chunk a multiple of 3 bytes long encodes to whole base64 groups, so the chunks' base64
 * joined is the whole file's (no binary string of the whole file is built). */
export function toBase64(bytes: Uint8Array): string {
  const chunk = 3 * 0x2000;
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    parts.push(btoa(String.fromCharCode(...bytes.subarray(i, i + chunk))));
  }
  return parts.join('');
}

/** A file's type as an image: its own, or from its extension when the system gave none. */
export function imageType(file: File): string {
  if (file.type) return file.type;
  const dot = file.name.lastIndexOf('.');
  return dot < 0 ? '' : (IMAGE_EXTENSIONS[file.name.slice(dot + 1).toLowerCase()] ?? '');
}

export async function readImage(file: File): Promise<ImageContent> {
  const type = imageType(file);
  if (!IMAGE_TYPES.includes(type)) {
    throw new ImageRejected(`${file.name || 'That file'} is not a PNG, JPEG, GIF or WebP image.`);
  }
  if (file.size > MAX_IMAGE_BYTES) {
    throw new ImageRejected(
      `${file.name || 'The image'} is ${(file.size / 1048576).toFixed(1)} MB; the limit is 5 MB.`,
    );
  }
  return { data: toBase64(new Uint8Array(await file.arrayBuffer())), mime_type: type };
}

/** The image files of a paste or a drop. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return Array.from(data.files).filter((file) => imageType(file).startsWith('image/'));
}
