import { describe, expect, it } from 'vitest';
import type { DocumentAttachment } from '../../ipc/wire';
import {
  ATTACH_ACCEPT,
  documentFromText,
  fileBase64,
  formatSize,
  kindOf,
  MAX_DOCUMENT_BYTES,
  mentioned,
  parseDocumentHeading,
  partsText,
  problemsText,
  reading,
  resourceAttached,
  toSend,
  withDocument,
  type Attachment,
} from './attachments';
import { imageFiles, readImage, toBase64 } from './images';

/** A file of `size` bytes (sparse: the size is all the checks read). */
function sized(name: string, size: number, type = ''): File {
  const file = new File([], name, { type });
  Object.defineProperty(file, 'size', { value: size });
  return file;
}

describe('which files are attached as what', () => {
  it('takes images by their type and documents by their extension', () => {
    expect(kindOf(new File(['x'], 'shot.png', { type: 'image/png' }))).toEqual({ kind: 'image' });
    // No type from the system: the extension names the image.
    expect(kindOf(new File(['x'], 'photo.JPG'))).toEqual({ kind: 'image' });
    for (const name of ['a.pdf', 'b.docx', 'c.pptx', 'd.xlsx', 'e.xlsm', 'f.xls', 'G.ODS']) {
      expect(kindOf(new File(['x'], name, { type: 'application/octet-stream' }))).toEqual({
        kind: 'document',
      });
    }
  });

  it('refuses other files and documents over 25 MB, naming them', () => {
    const text = kindOf(new File(['x'], 'notes.txt', { type: 'text/plain' }));
    expect(text).toEqual({
      kind: 'refused',
      message:
        'notes.txt cannot be attached: attach an image (PNG, JPEG, GIF, WebP) or a document (PDF, DOCX, PPTX, XLSX, XLS, ODS).',
    });
    expect(kindOf(sized('big.pdf', MAX_DOCUMENT_BYTES))).toEqual({ kind: 'document' });
    expect(kindOf(sized('big.pdf', 31 * 1024 * 1024 + 200_000))).toEqual({
      kind: 'refused',
      message: 'big.pdf is 31.2 MB; a document can be at most 25 MB.',
    });
  });

  it('lets the picker offer the same files', () => {
    expect(ATTACH_ACCEPT).toBe(
      '.pdf,.docx,.pptx,.xlsx,.xlsm,.xls,.ods,image/png,image/jpeg,image/gif,image/webp',
    );
  });

  it('keeps the image rules: four types, 5 MB', async () => {
    await expect(readImage(new File(['x'], 'a.bmp', { type: 'image/bmp' }))).rejects.toThrow(
      'a.bmp is not a PNG, JPEG, GIF or WebP image.',
    );
    await expect(readImage(sized('huge.png', 6 * 1024 * 1024, 'image/png'))).rejects.toThrow(
      'huge.png is 6.0 MB; the limit is 5 MB.',
    );
    const image = await readImage(new File([new Uint8Array([1, 2, 3])], 'x.webp'));
    expect(image).toEqual({ data: 'AQID', mime_type: 'image/webp' });
    const transfer = { files: [new File([], 'a.png'), new File([], 'b.pdf')] };
    expect(imageFiles(transfer as unknown as DataTransfer).map((f) => f.name)).toEqual(['a.png']);
  });
});

describe('base64', () => {
  it('is the whole file’s, across chunk boundaries', async () => {
    for (const length of [0, 1, 2, 3, 24_575, 24_576, 24_577, 100_000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31 + 7) % 256);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
    const file = new File([new Uint8Array([0x25, 0x50, 0x44, 0x46])], 'a.pdf');
    expect(await fileBase64(file)).toBe('JVBERg==');
  });
});

describe('a document’s heading', () => {
  it('is read from the first line as Rust writes it', () => {
    expect(parseDocumentHeading('[spec.pdf: PDF, 2 pages]\n--- page 1 ---\nhi\n')).toEqual({
      name: 'spec.pdf',
      label: 'PDF',
      parts: 2,
      partName: 'page',
    });
    expect(parseDocumentHeading('[a.docx: Word document, 1 page]\n')).toMatchObject({
      label: 'Word document',
      parts: 1,
    });
    expect(parseDocumentHeading('[d.pptx: presentation, 11 slides]\n')).toMatchObject({
      parts: 11,
      partName: 'slide',
    });
    expect(parseDocumentHeading('[e.ods: spreadsheet, 0 sheets]\n\n')).toMatchObject({
      parts: 0,
      partName: 'sheet',
    });
    // A project file mentioned with `@`: its path and lines.
    expect(parseDocumentHeading('[src/main.rs: file, 12 lines]\nfn main() {}\n')).toEqual({
      name: 'src/main.rs',
      label: 'file',
      parts: 12,
      partName: 'line',
    });
    expect(parseDocumentHeading('[README.md: file, 1 line]\n# hi')).toMatchObject({
      parts: 1,
      partName: 'line',
    });
    expect(parseDocumentHeading('[empty.txt: file, 0 lines]\n')).toMatchObject({ parts: 0 });
    // An MCP server's resource chosen with `@`: `server: uri` and its lines.
    expect(parseDocumentHeading('[docs: docs://guide: MCP resource, 3 lines]\n# Guide\n')).toEqual({
      name: 'docs: docs://guide',
      label: 'MCP resource',
      parts: 3,
      partName: 'line',
    });
    // A name with a colon and brackets of its own.
    expect(parseDocumentHeading('[q: [x], 1 page].pdf: PDF, 3 pages]\nx')?.name).toBe(
      'q: [x], 1 page].pdf',
    );
  });

  it('is strict: label with its part name, plural with the count, a whole first line', () => {
    for (const text of [
      '[spec.pdf: PDF, 2 pages]', // no line break: not Rust's
      '[spec.pdf: PDF, 2 page]\n',
      '[spec.pdf: PDF, 1 pages]\n',
      '[spec.pdf: PDF, 2 slides]\n',
      '[spec.pdf: PDF, 2 lines]\n',
      '[main.rs: file, 2 pages]\n',
      '[main.rs: file, 1 lines]\n',
      '[main.rs: file, 2 line]\n',
      '[main.rs: File, 2 lines]\n',
      '[docs: docs://guide: MCP resource, 2 pages]\n',
      '[docs: docs://guide: mcp resource, 2 lines]\n',
      '[spec.pdf: pdf, 2 pages]\n',
      '[: PDF, 2 pages]\n',
      ' [spec.pdf: PDF, 2 pages]\n',
      '[spec.pdf: PDF, 2 pages] and more\n',
      '[spec.pdf: PDF, -2 pages]\n',
      'Look at [spec.pdf: PDF, 2 pages]\n',
      'hello\n[spec.pdf: PDF, 2 pages]\n',
    ]) {
      expect(parseDocumentHeading(text), text).toBeNull();
    }
  });

  it('gives back the document the prompt takes (its size and cut unknown)', () => {
    const text = '[s.xlsx: spreadsheet, 2 sheets]\n--- sheet "Q1" ---\na,b\n';
    expect(documentFromText(text)).toEqual({
      name: 's.xlsx',
      label: 'spreadsheet',
      size: 0,
      parts: 2,
      part_name: 'sheet',
      omitted_chars: 0,
      text,
    });
    expect(documentFromText('just text')).toBeNull();
  });
});

describe('the chips', () => {
  const doc: DocumentAttachment = {
    name: 'spec.pdf',
    label: 'PDF',
    size: 31_744,
    parts: 2,
    part_name: 'page',
    omitted_chars: 0,
    text: '[spec.pdf: PDF, 2 pages]\n',
  };

  it('say sizes and parts in words', () => {
    expect(formatSize(512)).toBe('512 B');
    expect(formatSize(31_744)).toBe('31 KB');
    expect(formatSize(2_516_582)).toBe('2.4 MB');
    expect(partsText(1, 'page')).toBe('1 page');
    expect(partsText(11, 'slide')).toBe('11 slides');
    expect(partsText(0, 'sheet')).toBe('0 sheets');
  });

  it('hold the message while a document is read, and send in the order added', () => {
    const image = { data: 'AAAA', mime_type: 'image/png' };
    const busy: Attachment[] = [
      { key: 1, kind: 'document', name: 'spec.pdf', size: 31_744, document: null },
      { key: 2, kind: 'image', name: 'a.png', size: 3, image },
    ];
    expect(reading(busy)).toBe(true);
    expect(toSend(busy)).toEqual({ images: [image], documents: [] });
    const read: Attachment[] = [{ ...busy[0], document: doc } as Attachment, busy[1]];
    expect(reading(read)).toBe(false);
    expect(toSend(read)).toEqual({ images: [image], documents: [doc] });
  });

  it('take a read document in place, unless it was removed meanwhile', () => {
    const image = { data: 'AAAA', mime_type: 'image/png' };
    const list: Attachment[] = [
      { key: 1, kind: 'document', name: 'spec.pdf', size: 31_744, document: null },
      { key: 2, kind: 'image', name: 'a.png', size: 3, image },
      { key: 3, kind: 'document', name: 'src/a.rs', size: 0, document: null, mention: 'src/a.rs' },
    ];
    const read = withDocument(list, 1, doc);
    expect(read).toEqual([{ ...list[0], document: doc }, list[1], list[2]]);
    // A mentioned file's size is known once it is read.
    expect(withDocument(list, 3, doc, 12)[2]).toEqual({ ...list[2], size: 12, document: doc });
    // Removed while it was read, or not a document: the same list.
    expect(withDocument(list, 9, doc)).toBe(list);
    expect(withDocument(list, 2, doc)).toBe(list);
  });

  it('hold a mentioned file once, and say each problem once', () => {
    const list: Attachment[] = [
      { key: 1, kind: 'document', name: 'src/a.rs', size: 0, document: null, mention: 'src/a.rs' },
      { key: 2, kind: 'document', name: 'b.pdf', size: 3, document: null },
    ];
    expect(mentioned(list, 'src/a.rs')).toBe(true);
    expect(mentioned(list, 'b.pdf')).toBe(false);
    expect(mentioned([], 'src/a.rs')).toBe(false);
    expect(problemsText([])).toBeNull();
    expect(problemsText(['A is too big.', 'No images.', 'No images.'])).toBe(
      'A is too big. No images.',
    );
  });
});

describe('an MCP resource attached', () => {
  it('is known by its key, once', () => {
    const list: Attachment[] = [
      { key: 1, kind: 'document', name: 'a.rs', size: 0, document: null, mention: 'a.rs' },
      {
        key: 2,
        kind: 'document',
        name: 'docs: docs://guide',
        size: 0,
        document: null,
        resource: 'user:docs:docs://guide',
      },
    ];
    expect(resourceAttached(list, 'user:docs:docs://guide')).toBe(true);
    expect(resourceAttached(list, 'project:docs:docs://guide')).toBe(false);
    expect(resourceAttached(list, 'a.rs')).toBe(false);
    expect(mentioned(list, 'docs: docs://guide')).toBe(false);
  });
});
