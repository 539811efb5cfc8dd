// Files attached to a message: which are images (sent as they are) and which are documents
// (read as text by Rust's `read_document`), their base64, and how a document's chip reads.
// Pure: the composer does the reading, state/chat.ts finds sent documents in user messages.
import type { DocumentAttachment, ImageContent } from '../../ipc/wire';
import { IMAGE_TYPES, imageType, toBase64 } from './images';

/** The documents Rust reads, by extension (it checks the bytes again). */
export const DOCUMENT_EXTENSIONS = ['.pdf', '.docx', '.pptx', '.xlsx', '.xlsm', '.xls', '.ods'];
/** Rust's cap on an attached document (`MAX_ATTACHED_DOCUMENT_BYTES`); said before reading. */
export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;
/** The file picker's `accept`: the documents, then the images. */
export const ATTACH_ACCEPT = [...DOCUMENT_EXTENSIONS, ...IMAGE_TYPES].join(',');

/** What a picked, pasted or dropped file is to the composer. */
export type FileKind =
  { kind: 'image' } | { kind: 'document' } | { kind: 'refused'; message: string };

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
}

function megabytes(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

/**
 * Whether `file` is attached as an image (its type says so; `readImage` checks which and its
 * size) or as a document (its extension; at most 25 MB), or refused, with words to show.
 */
export function kindOf(file: File): FileKind {
  const name = file.name || 'That file';
  if (imageType(file).startsWith('image/')) return { kind: 'image' };
  if (DOCUMENT_EXTENSIONS.includes(extensionOf(file.name))) {
    if (file.size > MAX_DOCUMENT_BYTES) {
      return {
        kind: 'refused',
        message: `${name} is ${megabytes(file.size)}; a document can be at most 25 MB.`,
      };
    }
    return { kind: 'document' };
  }
  return {
    kind: 'refused',
    message: `${name} cannot be attached: attach an image (PNG, JPEG, GIF, WebP) or a document (PDF, DOCX, PPTX, XLSX, XLS, ODS).`,
  };
}

/** The files of a paste or a drop (every file: `kindOf` says which are welcome). */
export function transferFiles(data: DataTransfer | null): File[] {
  return data ? Array.from(data.files) : [];
}

/** A file's bytes as base64, what `read_document` takes. */
export async function fileBase64(file: File): Promise<string> {
  return toBase64(new Uint8Array(await file.arrayBuffer()));
}

/** One attachment in the composer, in the order it was added. */
export type Attachment =
  | { key: number; kind: 'image'; name: string; size: number; image: ImageContent }
  | {
      key: number;
      kind: 'document';
      name: string;
      size: number;
      /** `null` while Rust reads it: the chip is busy and the message waits. */
      document: DocumentAttachment | null;
      /** A project file mentioned with `@`: its path (read by `mention_file`). */
      mention?: string;
      /** An MCP server's resource chosen with `@`: its `resourceKey` (read by
       * `mcp_read_resource`). */
      resource?: string;
    };

/** Whether a document is still being read (the message cannot go yet). */
export function reading(attachments: readonly Attachment[]): boolean {
  return attachments.some((a) => a.kind === 'document' && a.document === null);
}

/** `attachments` with the document `key` read as `document` (and, when given, of `size` bytes:
 * a mentioned file's size is known only then); the same list when it was removed meanwhile. */
export function withDocument(
  attachments: readonly Attachment[],
  key: number,
  document: DocumentAttachment,
  size?: number,
): readonly Attachment[] {
  const chip = attachments.find((a) => a.key === key);
  if (chip?.kind !== 'document') return attachments;
  const read: Attachment = { ...chip, size: size ?? chip.size, document };
  return attachments.map((a) => (a.key === key ? read : a));
}

/** Whether the project file `path` is attached already (once, however often it is mentioned). */
export function mentioned(attachments: readonly Attachment[], path: string): boolean {
  return attachments.some((a) => a.kind === 'document' && a.mention === path);
}

/** Whether the MCP resource `key` (`resourceKey`) is attached already. */
export function resourceAttached(attachments: readonly Attachment[], key: string): boolean {
  return attachments.some((a) => a.kind === 'document' && a.resource === key);
}

/** What the notice says of files that could not be attached (each reason once), or `null`. */
export function problemsText(problems: readonly string[]): string | null {
  return problems.length ? [...new Set(problems)].join(' ') : null;
}

/** The images and the read documents to send, in the order they were added. */
export function toSend(attachments: readonly Attachment[]): {
  images: ImageContent[];
  documents: DocumentAttachment[];
} {
  const images: ImageContent[] = [];
  const documents: DocumentAttachment[] = [];
  for (const attachment of attachments) {
    if (attachment.kind === 'image') images.push(attachment.image);
    else if (attachment.document) documents.push(attachment.document);
  }
  return { images, documents };
}

/** A size as a chip shows it: `512 B`, `31 KB`, `2.4 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return megabytes(bytes);
}

/** `1 page`, `11 slides`, `2 sheets`. */
export function partsText(parts: number, partName: string): string {
  return `${parts} ${partName}${parts === 1 ? '' : 's'}`;
}

/** What a document's heading line says of it. */
export interface DocumentHeading {
  name: string;
  label: string;
  parts: number;
  partName: string;
}

/** Each label Rust writes, with what its parts are. */
const PART_NAMES: Record<string, string> = {
  PDF: 'page',
  'Word document': 'page',
  presentation: 'slide',
  spreadsheet: 'sheet',
  // A project file mentioned with `@` (`mention_file`): its lines.
  file: 'line',
  // An MCP server's resource chosen with `@` (`mcp_read_resource`): its lines.
  'MCP resource': 'line',
};

const HEADING =
  /^\[(.+): (PDF|Word document|presentation|spreadsheet|file|MCP resource), (\d+) (page|slide|sheet|line)(s?)\]$/;

/**
 * The heading of a document's text as Rust writes it (`[spec.pdf: PDF, 2 pages]`, or for a file
 * mentioned with `@`, `[src/main.rs: file, 12 lines]`, for an MCP resource `[docs: docs://guide:
 * MCP resource, 3 lines]`, then a line break), or `null` when `text`
 * does not start with one: the label and its part name must go together and the plural must
 * agree with the count.
 */
export function parseDocumentHeading(text: string): DocumentHeading | null {
  const end = text.indexOf('\n');
  if (end < 0) return null;
  const match = HEADING.exec(text.slice(0, end));
  if (!match) return null;
  const [, name, label, count, partName, plural] = match;
  const parts = Number(count);
  if (!Number.isSafeInteger(parts) || PART_NAMES[label] !== partName) return null;
  if ((parts === 1) !== (plural === '')) return null;
  return { name, label, parts, partName };
}

/** A sent document again as the prompt takes it (its size and cut are not in the message). */
export function documentFromText(text: string): DocumentAttachment | null {
  const heading = parseDocumentHeading(text);
  if (!heading) return null;
  return {
    name: heading.name,
    label: heading.label,
    size: 0,
    parts: heading.parts,
    part_name: heading.partName,
    omitted_chars: 0,
    text,
  };
}
