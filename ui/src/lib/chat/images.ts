// Images pasted or dropped into the composer, as the wire's base64 `ImageContent`.
import type { ImageContent } from '../../ipc/wire';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** Providers reject larger images; say so before sending. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export class ImageRejected extends Error {}

export async function readImage(file: File): Promise<ImageContent> {
  if (!IMAGE_TYPES.includes(file.type)) {
    throw new ImageRejected(`${file.name || 'That file'} is not a PNG, JPEG, GIF or WebP image.`);
  }
  if (file.size > MAX_IMAGE_BYTES) {
    throw new ImageRejected(
      `${file.name || 'The image'} is ${(file.size / 1048576).toFixed(1)} MB; the limit is 5 MB.`,
    );
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  // Chunked: String.fromCharCode(...bytes) overflows the stack on big images.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return { data: btoa(binary), mime_type: file.type };
}

/** The image files of a paste or a drop. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return Array.from(data.files).filter((file) => file.type.startsWith('image/'));
}
