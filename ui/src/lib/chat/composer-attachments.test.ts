// The composer's attachments on their own: files added (images, documents read by Rust), files
// mentioned with `@`, and what is said when one cannot be attached.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import { fakeDocument } from '../../test-ipc';
import { ComposerAttachments } from './composer-attachments.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

function setup({ images = true } = {}) {
  const notify = vi.fn<(message: string | null) => void>();
  const attachments = new ComposerAttachments({
    imagesAllowed: () => images,
    modelName: () => 'm1',
    notify,
  });
  return { attachments, notify };
}

function file(name: string, bytes = 3, type = ''): File {
  return new File([new Uint8Array(bytes).fill(65)], name, { type });
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe('adding files', () => {
  it('takes images at once and reads documents, busy until read', async () => {
    const { attachments, notify } = setup();
    const adding = attachments.add([file('spec.pdf'), file('shot.png', 3, 'image/png')]);
    // The document's chip is there at once, busy until Rust read it.
    expect(attachments.list.map((a) => a.kind)).toEqual(['document']);
    expect(attachments.busy).toBe(true);
    await adding;
    expect(attachments.list.map((a) => a.kind)).toEqual(['document', 'image']);
    expect(attachments.busy).toBe(false);
    expect(attachments.list[0]).toMatchObject({
      kind: 'document',
      name: 'spec.pdf',
      size: 3,
      document: fakeDocument('spec.pdf', 'QUFB'),
    });
    // Nothing went wrong: the notice is cleared.
    expect(notify).toHaveBeenCalledWith(null);
  });

  it('says why files cannot be attached, each reason once', async () => {
    const { attachments, notify } = setup({ images: false });
    await attachments.add([file('a.png', 3, 'image/png'), file('b.gif', 3, 'image/gif')]);
    expect(attachments.list).toEqual([]);
    expect(notify).toHaveBeenCalledWith(
      'm1 does not take images: pick a model that does to attach one.',
    );
  });

  it('drops a document Rust cannot read, saying why', async () => {
    vi.mocked(ipc.readDocument).mockRejectedValueOnce(
      new ipc.ArborError('unsupported', 'Not a PDF.'),
    );
    const { attachments, notify } = setup();
    await attachments.add([file('fake.pdf')]);
    expect(attachments.list).toEqual([]);
    expect(notify).toHaveBeenLastCalledWith('Not a PDF.');
  });

  it('keeps a document removed while it was read removed', async () => {
    const { attachments } = setup();
    const adding = attachments.add([file('spec.pdf')]);
    attachments.remove(attachments.list[0].key);
    await adding;
    expect(attachments.list).toEqual([]);
  });

  it('clears what the message took', async () => {
    const { attachments } = setup();
    await attachments.add([file('spec.pdf')]);
    attachments.clear();
    expect(attachments.list).toEqual([]);
  });
});

describe('mentioning files', () => {
  it('reads a mentioned file once, however often it is mentioned', async () => {
    const { attachments } = setup();
    await attachments.mention('src/main.rs');
    await attachments.mention('src/main.rs');
    expect(ipc.mentionFile).toHaveBeenCalledOnce();
    expect(attachments.list).toHaveLength(1);
    expect(attachments.list[0]).toMatchObject({
      kind: 'document',
      name: 'src/main.rs',
      mention: 'src/main.rs',
    });
    const chip = attachments.list[0];
    expect(chip.kind === 'document' && chip.document?.size === chip.size).toBe(true);
  });

  it('drops a file that cannot be read, saying why', async () => {
    vi.mocked(ipc.mentionFile).mockRejectedValueOnce(
      new ipc.ArborError('not_found', 'src/gone.rs is not there.'),
    );
    const { attachments, notify } = setup();
    await attachments.mention('src/gone.rs');
    expect(attachments.list).toEqual([]);
    expect(notify).toHaveBeenCalledWith('src/gone.rs is not there.');
  });
});
