// Attaching files to a message, through the chat as the window shows it: the picker, paste and
// drop, each attachment's chip, documents read by Rust (`read_document`), and what is sent; files
// mentioned with `@` (`find_files`, `mention_file`), and the `/` commands typed in the composer.
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { DocumentAttachment, SessionView } from '../../ipc/wire';
import { ChatStore } from '../../state/chat.svelte';
import { mentions } from '../../state/mentions.svelte';
import { emit, EMPTY_VIEW, fakeDocument, STATE, TOOLS } from '../../test-ipc';
import ChatView from './ChatView.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

const SPEC = '[spec.pdf: PDF, 2 pages]\n--- page 1 ---\nIntro\n--- page 2 ---\nEnd\n';

async function setup(view: SessionView = EMPTY_VIEW) {
  vi.mocked(ipc.startSession).mockImplementationOnce(async (_id, onevent) => {
    const { fakeIpc } = await import('../../test-ipc');
    await fakeIpc(ipc).startSession(null, onevent);
    return view;
  });
  vi.mocked(ipc.sessionView).mockResolvedValue(view);
  const groups = await ipc.listModels();
  const chat = new ChatStore((flush) => setTimeout(flush, 0));
  await chat.open(null);
  const onerror = vi.fn();
  // The picker's `accept` is the browser's business; the composer checks every file itself.
  const user = userEvent.setup({ applyAccept: false });
  render(ChatView, { chat, groups, onerror });
  return { user, onerror };
}

/** A model that takes images. */
const WITH_IMAGES: SessionView = { ...EMPTY_VIEW, state: { ...STATE, images: true } };

function file(name: string, bytes = 3, type = ''): File {
  return new File([new Uint8Array(bytes).fill(65)], name, { type });
}

function chips(): HTMLElement[] {
  return screen.queryAllByTestId('attachment-chip');
}

/** A `read_document` answer the test hands out when it likes (once the composer asked). */
function pendingRead() {
  let answer: { resolve: (document: DocumentAttachment) => void; reject: (error: unknown) => void };
  const asked = new Promise<void>((started) => {
    vi.mocked(ipc.readDocument).mockImplementationOnce(
      () =>
        new Promise((resolve, reject) => {
          answer = { resolve, reject };
          started();
        }),
    );
  });
  return {
    resolve: async (document: DocumentAttachment) => {
      await asked;
      answer.resolve(document);
    },
    reject: async (error: unknown) => {
      await asked;
      answer.reject(error);
    },
  };
}

beforeEach(() => {
  // Back to the fake's answers (a test's own answers do not leak into the next).
  vi.resetAllMocks();
  mentions.take();
});

describe('attaching files', () => {
  it('offers a keyboard-reachable attach button that opens the hidden picker', async () => {
    const { user } = await setup();
    const button = screen.getByTestId('attach-button');
    expect(button).toHaveAccessibleName('Attach files');
    expect(button.tagName).toBe('BUTTON');
    const input = screen.getByTestId('attach-input') as HTMLInputElement;
    expect(input.type).toBe('file');
    expect(input.multiple).toBe(true);
    expect(input.accept).toBe(
      '.pdf,.docx,.pptx,.xlsx,.xlsm,.xls,.ods,image/png,image/jpeg,image/gif,image/webp',
    );
    expect(input).toHaveClass('visually-hidden');
    expect(input).not.toHaveAttribute('style');
    const opened = vi.spyOn(input, 'click');
    button.focus();
    await user.keyboard('{Enter}');
    expect(opened).toHaveBeenCalledTimes(1);
  });

  it('reads a picked document (busy meanwhile), then sends it without any text', async () => {
    const { user } = await setup();
    const read = pendingRead();
    await user.upload(screen.getByTestId('attach-input'), file('spec.pdf', 31 * 1024));

    const [chip] = chips();
    expect(chip).toHaveAttribute('data-kind', 'document');
    expect(chip).toHaveAttribute('data-name', 'spec.pdf');
    expect(chip).toHaveAttribute('aria-busy', 'true');
    expect(chip).toHaveTextContent('Reading…');
    expect(screen.getByTestId('send')).toBeDisabled();
    await user.type(screen.getByTestId('composer'), '{Enter}');
    expect(ipc.prompt).not.toHaveBeenCalled();
    // The bytes go as base64, under the file's name.
    expect(ipc.readDocument).toHaveBeenCalledWith('spec.pdf', expect.stringMatching(/^QUFB/));

    const document = { ...fakeDocument('spec.pdf', 'QUFB'), size: 31 * 1024 };
    await read.resolve(document);
    await waitFor(() => expect(chip).toHaveAttribute('aria-busy', 'false'));
    expect(chip).toHaveTextContent('spec.pdf');
    expect(chip).toHaveTextContent('31 KB');
    expect(chip).toHaveTextContent('2 pages');
    expect(chip).not.toHaveTextContent('cut to fit');
    expect(chip).toHaveAttribute('title', 'spec.pdf');

    const send = screen.getByTestId('send');
    expect(send).toBeEnabled();
    await user.click(send);
    expect(ipc.prompt).toHaveBeenCalledWith('', [], [document]);
    expect(chips()).toHaveLength(0);
  });

  it('sends text, images and documents together, in the order added', async () => {
    const { user } = await setup(WITH_IMAGES);
    await user.upload(screen.getByTestId('attach-input'), [
      file('deck.pptx'),
      file('shot.png', 3, 'image/png'),
      file('sheet.xlsx'),
    ]);
    await waitFor(() =>
      expect(chips().map((c) => c.getAttribute('aria-busy'))).toEqual(['false', 'false', 'false']),
    );
    expect(chips().map((c) => [c.dataset.kind, c.dataset.name])).toEqual([
      ['document', 'deck.pptx'],
      ['image', 'shot.png'],
      ['document', 'sheet.xlsx'],
    ]);
    expect(chips()[0]).toHaveTextContent('2 slides');
    expect(chips()[2]).toHaveTextContent('2 sheets');
    // The thumbnail is decorative: the name beside it speaks.
    expect(chips()[1].querySelector('img')).toHaveAttribute('src', 'data:image/png;base64,QUFB');
    expect(chips()[1]).toHaveTextContent('shot.png');

    await user.type(screen.getByTestId('composer'), 'Compare these{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith(
      'Compare these',
      [{ data: 'QUFB', mime_type: 'image/png' }],
      [fakeDocument('deck.pptx', 'QUFB'), fakeDocument('sheet.xlsx', 'QUFB')],
    );
  });

  it('says when a document was cut to fit', async () => {
    const { user } = await setup();
    vi.mocked(ipc.readDocument).mockResolvedValueOnce({
      ...fakeDocument('long.docx', 'QUFB'),
      omitted_chars: 12_000,
    });
    await user.upload(screen.getByTestId('attach-input'), file('long.docx'));
    await waitFor(() => expect(chips()[0]).toHaveTextContent('cut to fit'));
    expect(chips()[0]).toHaveTextContent('Word document');
  });

  it('drops a document Rust cannot read, with its words in the notice', async () => {
    const { user } = await setup();
    const read = pendingRead();
    await user.upload(screen.getByTestId('attach-input'), file('broken.pdf'));
    expect(chips()).toHaveLength(1);
    await read.reject({
      code: 'invalid_document',
      message: 'broken.pdf is not a PDF Arbor can read.',
    });
    expect(await screen.findByTestId('composer-notice')).toHaveTextContent(
      'broken.pdf is not a PDF Arbor can read.',
    );
    expect(chips()).toHaveLength(0);
    expect(screen.getByTestId('send')).toBeDisabled();
  });

  it('refuses other files and documents over 25 MB before reading them', async () => {
    const { user } = await setup();
    const big = file('huge.pdf');
    Object.defineProperty(big, 'size', { value: 26 * 1024 * 1024 });
    await user.upload(screen.getByTestId('attach-input'), [file('notes.txt'), big]);
    const notice = await screen.findByTestId('composer-notice');
    expect(notice).toHaveTextContent('notes.txt cannot be attached');
    expect(notice).toHaveTextContent('huge.pdf is 26.0 MB; a document can be at most 25 MB.');
    expect(chips()).toHaveLength(0);
    expect(ipc.readDocument).not.toHaveBeenCalled();
  });

  it('takes documents for a model without images, but not images', async () => {
    const { user } = await setup();
    await user.click(screen.getByTestId('composer'));
    await user.paste({
      files: [file('shot.png', 3, 'image/png'), file('spec.pdf')],
    } as unknown as DataTransfer);
    expect(await screen.findByTestId('composer-notice')).toHaveTextContent(
      'm1 does not take images',
    );
    await waitFor(() => expect(chips().map((c) => c.dataset.name)).toEqual(['spec.pdf']));
  });

  it('takes dropped documents', async () => {
    await setup();
    const dataTransfer = { files: [file('data.ods')], types: ['Files'] };
    await fireEvent.drop(screen.getByTestId('composer'), { dataTransfer });
    await waitFor(() => expect(chips().map((c) => c.dataset.name)).toEqual(['data.ods']));
    await waitFor(() => expect(chips()[0]).toHaveTextContent('2 sheets'));
  });

  it('removes a chip with its button, a busy one too, and keeps the focus in the message', async () => {
    const { user } = await setup();
    const read = pendingRead();
    await user.upload(screen.getByTestId('attach-input'), [file('a.pdf'), file('b.pdf')]);
    const remove = within(chips()[0]).getByTestId('attachment-remove');
    expect(remove).toHaveAccessibleName('Remove a.pdf');
    await user.click(remove);
    expect(chips().map((c) => c.dataset.name)).toEqual(['b.pdf']);
    expect(screen.getByTestId('composer')).toHaveFocus();
    // Its answer comes after: nothing comes back.
    await read.resolve(fakeDocument('a.pdf', 'QUFB'));
    await waitFor(() => expect(chips()[0]).toHaveAttribute('aria-busy', 'false'));
    expect(chips().map((c) => c.dataset.name)).toEqual(['b.pdf']);
  });
});

describe('a sent message with documents', () => {
  const VIEW: SessionView = {
    ...EMPTY_VIEW,
    session_id: 's1',
    entries: [
      {
        node_id: 'u1',
        parent_id: null,
        kind: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'What does it say?' },
            { type: 'text', text: SPEC },
          ],
        },
        aborted: false,
        label: null,
        sibling_ids: ['u1'],
        summary: null,
        tokens_before: null,
      },
    ],
  };

  it('shows each document as a chip above the text, never its text', async () => {
    await setup(VIEW);
    const message = screen.getByTestId('message');
    const chip = within(message).getByTestId('message-document');
    expect(chip).toHaveAttribute('data-name', 'spec.pdf');
    expect(chip).toHaveTextContent('spec.pdf');
    expect(chip).toHaveTextContent('PDF · 2 pages');
    expect(within(message).getByTestId('message-text')).toHaveTextContent(/^What does it say\?$/);
    expect(message).not.toHaveTextContent('Intro');
    expect(message).not.toHaveTextContent('--- page 1 ---');
    expect(
      chip.compareDocumentPosition(within(message).getByTestId('message-text')) &
        Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
  });

  it('shows a file mentioned with @ as a chip with its lines, never its text', async () => {
    await setup({
      ...VIEW,
      entries: [
        {
          ...VIEW.entries[0],
          message: {
            role: 'user',
            content: [
              { type: 'text', text: 'Explain @src/main.rs' },
              { type: 'text', text: '[src/main.rs: file, 12 lines]\nfn main() {}\n' },
            ],
          },
        },
      ],
    });
    const message = screen.getByTestId('message');
    const chip = within(message).getByTestId('message-document');
    expect(chip).toHaveAttribute('data-name', 'src/main.rs');
    expect(chip).toHaveTextContent('file · 12 lines');
    expect(within(message).getByTestId('message-text')).toHaveTextContent(
      /^Explain @src\/main\.rs$/,
    );
    expect(message).not.toHaveTextContent('fn main');
  });

  it('sends its documents again when the store could not save the turn', async () => {
    const { user } = await setup();
    const message = {
      role: 'user' as const,
      content: [{ type: 'text' as const, text: SPEC }],
    };
    emit(
      { type: 'agent_start' },
      { type: 'message_start', message },
      { type: 'message_end', message },
      { type: 'store_error', message: 'database or disk is full' },
      { type: 'agent_end', messages: [], status: 'aborted', error: { kind: 'aborted' } },
    );
    const error = await screen.findByTestId('run-error');
    const shown = screen.getByTestId('message');
    expect(within(shown).getByTestId('message-document')).toHaveAttribute('data-name', 'spec.pdf');
    expect(within(shown).queryByTestId('message-text')).not.toBeInTheDocument();
    await user.click(within(error).getByTestId('run-retry'));
    expect(ipc.prompt).toHaveBeenCalledWith(
      '',
      [],
      [
        {
          name: 'spec.pdf',
          label: 'PDF',
          size: 0,
          parts: 2,
          part_name: 'page',
          omitted_chars: 0,
          text: SPEC,
        },
      ],
    );
  });
});

/** The composer's text box. */
function box(): HTMLTextAreaElement {
  return screen.getByTestId('composer') as HTMLTextAreaElement;
}

function options(testid: 'mention-option' | 'command-option'): HTMLElement[] {
  return screen.queryAllByTestId(testid);
}

describe('mentioning a file with @', () => {
  it('finds the project’s files as the user types, and attaches the one chosen', async () => {
    const { user } = await setup();
    await user.type(box(), 'Explain @');
    const menu = await screen.findByTestId('mention-menu');
    expect(menu).toHaveAttribute('role', 'listbox');
    expect(ipc.findFiles).toHaveBeenLastCalledWith('', 50);
    // The files, then the MCP servers' resources.
    expect(options('mention-option').map((o) => o.dataset.path ?? o.dataset.uri)).toEqual([
      'src/main.rs',
      'src/lib.rs',
      'README.md',
      'docs://guide',
      'docs://changelog',
    ]);
    expect(options('mention-option').map((o) => o.dataset.kind)).toEqual([
      'file',
      'file',
      'file',
      'mcp-resource',
      'mcp-resource',
    ]);
    await user.type(box(), 'src');
    await waitFor(() => expect(options('mention-option')).toHaveLength(2));
    expect(ipc.findFiles).toHaveBeenLastCalledWith('src', 50);

    // The text keeps the focus; it names the popup and its active option.
    expect(box()).toHaveFocus();
    expect(box()).toHaveAttribute('aria-expanded', 'true');
    expect(box()).toHaveAttribute('aria-controls', menu.id);
    const [first, second] = options('mention-option');
    expect(first).toHaveAttribute('role', 'option');
    expect(first).toHaveAttribute('aria-selected', 'true');
    expect(box()).toHaveAttribute('aria-activedescendant', first.id);
    await user.keyboard('{ArrowDown}');
    expect(second).toHaveAttribute('aria-selected', 'true');
    expect(first).toHaveAttribute('aria-selected', 'false');
    expect(box()).toHaveAttribute('aria-activedescendant', second.id);
    await user.keyboard('{ArrowDown}');
    expect(first).toHaveAttribute('aria-selected', 'true');

    await user.keyboard('{ArrowUp}{Enter}');
    expect(box()).toHaveValue('Explain @src/lib.rs ');
    expect(screen.queryByTestId('mention-menu')).not.toBeInTheDocument();
    expect(box()).toHaveAttribute('aria-expanded', 'false');
    expect(box()).not.toHaveAttribute('aria-activedescendant');
    expect(ipc.mentionFile).toHaveBeenCalledWith('src/lib.rs');
    expect(ipc.prompt).not.toHaveBeenCalled();

    await waitFor(() => expect(chips()[0]).toHaveAttribute('aria-busy', 'false'));
    expect(chips()[0]).toHaveAttribute('data-kind', 'document');
    expect(chips()[0]).toHaveAttribute('data-name', 'src/lib.rs');
    expect(chips()[0]).toHaveTextContent('file · 1 line');

    await user.type(box(), 'please{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith(
      'Explain @src/lib.rs please',
      [],
      [await ipc.mentionFile('src/lib.rs')],
    );
    expect(chips()).toHaveLength(0);
  });

  it('marks the matched letters, as text', async () => {
    const { user } = await setup();
    vi.mocked(ipc.findFiles).mockResolvedValue([
      { path: 'src/<b>.rs', indices: [0, 4, 5, 6] },
      { path: '😀/main.rs', indices: [2, 3] },
    ]);
    await user.type(box(), '@sb');
    await screen.findByTestId('mention-menu');
    const [first, second] = options('mention-option');
    expect(first).toHaveTextContent('src/<b>.rs');
    expect(Array.from(first.querySelectorAll('mark')).map((m) => m.textContent)).toEqual([
      's',
      '<b>',
    ]);
    expect(first.querySelector('b')).toBeNull();
    expect(Array.from(second.querySelectorAll('mark')).map((m) => m.textContent)).toEqual(['ma']);
  });

  it('shows only the answer to what is typed now', async () => {
    const { user } = await setup();
    let answerFirst: (value: { path: string; indices: number[] }[]) => void = () => undefined;
    vi.mocked(ipc.findFiles).mockImplementationOnce(
      () => new Promise((resolve) => (answerFirst = resolve)),
    );
    await user.type(box(), '@m');
    await waitFor(() => expect(ipc.findFiles).toHaveBeenCalledWith('m', 50));
    await user.type(box(), 'a');
    await waitFor(() => expect(ipc.findFiles).toHaveBeenCalledWith('ma', 50));
    await waitFor(() => expect(options('mention-option')).toHaveLength(1));
    answerFirst([{ path: 'stale/m.rs', indices: [] }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(options('mention-option').map((o) => o.dataset.path)).toEqual(['src/main.rs']);
  });

  it('chooses with the mouse or Tab, closes with Esc, and says when nothing matches', async () => {
    const { user } = await setup();
    await user.type(box(), '@');
    await screen.findByTestId('mention-menu');
    await user.click(options('mention-option')[2]);
    expect(box()).toHaveValue('@README.md ');
    expect(box()).toHaveFocus();

    await user.type(box(), '@src');
    await screen.findByTestId('mention-menu');
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('mention-menu')).not.toBeInTheDocument();
    expect(box()).toHaveValue('@README.md @src');
    await user.keyboard('{Backspace}c');
    expect(screen.queryByTestId('mention-menu')).not.toBeInTheDocument();

    await user.type(box(), ' @lib');
    await screen.findByTestId('mention-menu');
    await user.keyboard('{Tab}');
    expect(box()).toHaveValue('@README.md @src @src/lib.rs ');
    expect(box()).toHaveFocus();

    await user.type(box(), '@zzz');
    expect(await screen.findByTestId('mention-empty')).toHaveTextContent('No file matches “zzz”');
    expect(screen.queryByTestId('mention-menu')).not.toBeInTheDocument();
    // An e-mail address is no mention.
    await user.clear(box());
    await user.type(box(), 'me@src');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByTestId('mention-menu')).not.toBeInTheDocument();
  });

  it('says why a file cannot go with the message', async () => {
    const { user } = await setup();
    vi.mocked(ipc.mentionFile).mockRejectedValueOnce({
      code: 'unsupported',
      message: 'logo.png is not a text file a message can carry',
    });
    await user.type(box(), '@');
    await screen.findByTestId('mention-menu');
    await user.keyboard('{Enter}');
    const notice = await screen.findByTestId('composer-notice');
    expect(notice).toHaveTextContent('logo.png is not a text file a message can carry');
    expect(notice).toHaveAttribute('role', 'alert');
    expect(chips()).toHaveLength(0);
  });

  it('mentions the files the window asks for (the files panel)', async () => {
    const { user } = await setup();
    await user.type(box(), 'Compare');
    mentions.request('src/main.rs');
    mentions.request('README.md');
    await waitFor(() => expect(box()).toHaveValue('Compare @src/main.rs @README.md '));
    expect(mentions.pending).toEqual([]);
    await waitFor(() =>
      expect(chips().map((c) => c.dataset.name)).toEqual(['src/main.rs', 'README.md']),
    );
    expect(ipc.mentionFile).toHaveBeenCalledTimes(2);
    // Mentioned again: one attachment.
    mentions.request('README.md');
    await waitFor(() => expect(box()).toHaveValue('Compare @src/main.rs @README.md @README.md '));
    expect(chips()).toHaveLength(2);
  });
});

describe('commands with /', () => {
  it('lists the commands as / is typed, filtered by what follows', async () => {
    const { user } = await setup();
    await user.type(box(), '/');
    const menu = await screen.findByTestId('command-menu');
    expect(menu).toHaveAttribute('role', 'listbox');
    // The built-ins, then (once the servers answer) the MCP servers' prompts.
    await waitFor(() =>
      expect(options('command-option').map((o) => o.dataset.command)).toEqual([
        'new',
        'compact',
        'model',
        'thinking',
        'plan',
        'export',
        'tree',
        'docs:review',
        'docs:summary',
      ]),
    );
    expect(options('command-option')[1]).toHaveTextContent('/compact [focus]');
    expect(options('command-option')[1]).toHaveTextContent('Summarise the conversation');
    expect(box()).toHaveAttribute('aria-controls', menu.id);
    expect(box()).toHaveAttribute('aria-activedescendant', options('command-option')[0].id);
    await user.type(box(), 't');
    expect(options('command-option').map((o) => o.dataset.command)).toEqual(['thinking', 'tree']);
    await user.keyboard('{ArrowDown}');
    expect(options('command-option')[1]).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('command-menu')).not.toBeInTheDocument();
    // Past the first word, or not at the start: no menu.
    await user.clear(box());
    await user.type(box(), '/compact ');
    expect(screen.queryByTestId('command-menu')).not.toBeInTheDocument();
    await user.clear(box());
    await user.type(box(), 'see /');
    expect(screen.queryByTestId('command-menu')).not.toBeInTheDocument();
  });

  it('sends an unknown /word as text (a path, say)', async () => {
    const { user } = await setup();
    await user.type(box(), '/etc/hosts is empty{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith('/etc/hosts is empty', [], []);
  });

  it('toggles plan mode with /plan and with Shift+Tab, which keeps the focus', async () => {
    const { user } = await setup();
    await user.type(box(), '/plan{Enter}');
    expect(ipc.setPlanMode).toHaveBeenCalledWith(true);
    expect(ipc.prompt).not.toHaveBeenCalled();
    expect(box()).toHaveValue('');
    const notice = await screen.findByTestId('composer-notice');
    expect(notice).toHaveTextContent('Plan mode is on');
    expect(notice).toHaveAttribute('role', 'status');
    expect(notice).toHaveAttribute('data-tone', 'info');

    await user.type(box(), 'draft');
    await user.keyboard('{Shift>}{Tab}{/Shift}');
    expect(ipc.setPlanMode).toHaveBeenLastCalledWith(false);
    expect(box()).toHaveFocus();
    expect(box()).toHaveValue('draft');
    await waitFor(() =>
      expect(screen.getByTestId('composer-notice')).toHaveTextContent('Plan mode is off'),
    );
  });

  it('calls an instruction-only skill by name: the model is asked to use it', async () => {
    const { user } = await setup();
    vi.mocked(ipc.listTools).mockResolvedValue({
      tools: [
        ...TOOLS,
        {
          ...TOOLS[1],
          name: 'review',
          description: 'Reviews the last change.',
          executable: false,
        },
      ],
    });
    await user.type(box(), '/re');
    const option = await screen.findByRole('option', { name: /\/review/ });
    expect(option).toHaveAttribute('data-command', 'review');
    expect(option).toHaveTextContent('Reviews the last change.');
    // Only approved skills without a script: not word_count (a script), not pending ones.
    await user.clear(box());
    await user.type(box(), '/');
    await screen.findByRole('option', { name: /\/review/ });
    expect(options('command-option').map((o) => o.dataset.command)).not.toContain('word_count');
    await user.type(box(), 're{Enter}');
    // Chosen: the line waits for what to do.
    expect(box()).toHaveValue('/review ');
    expect(ipc.prompt).not.toHaveBeenCalled();
    await user.type(box(), 'the parser change{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith('Use the `review` skill: the parser change', [], []);
  });
});
