// What MCP servers offer the composer, through the chat as the window shows it: a resource chosen
// from the `@` menu attached as a document chip (`mcp_read_resource`), a prompt chosen from the
// `/` menu put in the message to read and edit (`mcp_get_prompt`), its arguments' form, and what
// went wrong. Servers' text is shown as plain text.
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import { ChatStore } from '../../state/chat.svelte';
import { EMPTY_VIEW, MCP_PROMPTS, MCP_RESOURCES, mcpResourceDocument } from '../../test-ipc';
import ChatView from './ChatView.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

async function setup() {
  vi.mocked(ipc.startSession).mockImplementationOnce(async (_id, onevent) => {
    const { fakeIpc } = await import('../../test-ipc');
    await fakeIpc(ipc).startSession(null, onevent);
    return EMPTY_VIEW;
  });
  vi.mocked(ipc.sessionView).mockResolvedValue(EMPTY_VIEW);
  const groups = await ipc.listModels();
  const chat = new ChatStore((flush) => setTimeout(flush, 0));
  await chat.open(null);
  const user = userEvent.setup();
  render(ChatView, { chat, groups, onerror: vi.fn() });
  return { user };
}

function box(): HTMLTextAreaElement {
  return screen.getByTestId('composer') as HTMLTextAreaElement;
}

function chips(): HTMLElement[] {
  return screen.queryAllByTestId('attachment-chip');
}

function fields(): HTMLInputElement[] {
  return screen.queryAllByTestId('mcp-prompt-argument') as HTMLInputElement[];
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe('an MCP resource chosen with @', () => {
  it('is listed after the files and becomes a document chip sent with the message', async () => {
    const { user } = await setup();
    await user.type(box(), 'Read @gui');
    const option = await screen.findByRole('option', { name: /Guide/ });
    expect(ipc.mcpComposerItems).toHaveBeenCalledTimes(1);
    expect(option).toHaveAttribute('data-testid', 'mention-option');
    expect(option).toHaveAttribute('data-kind', 'mcp-resource');
    expect(option).toHaveAttribute('data-server', 'docs');
    expect(option).toHaveAttribute('data-uri', 'docs://guide');
    expect(option).not.toHaveAttribute('data-path');
    expect(option).toHaveTextContent('docs');
    expect(option).toHaveTextContent('How the project is laid out');
    expect(option).toHaveAttribute('aria-selected', 'true');

    await user.keyboard('{Enter}');
    expect(box()).toHaveValue('Read @docs://guide ');
    expect(box()).toHaveFocus();
    expect(ipc.mcpReadResource).toHaveBeenCalledWith('user', 'docs', 'docs://guide');
    expect(ipc.prompt).not.toHaveBeenCalled();
    await waitFor(() => expect(chips()[0]).toHaveAttribute('aria-busy', 'false'));
    expect(chips()[0]).toHaveAttribute('data-kind', 'document');
    expect(chips()[0]).toHaveAttribute('data-name', 'docs: docs://guide');
    expect(chips()[0]).toHaveTextContent('MCP resource · 1 line');

    // Chosen again: still one chip.
    await user.type(box(), '@guide');
    await screen.findByRole('option', { name: /Guide/ });
    await user.keyboard('{Enter}');
    expect(chips()).toHaveLength(1);

    await user.type(box(), '{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith(
      'Read @docs://guide @docs://guide',
      [],
      [mcpResourceDocument(MCP_RESOURCES[0])],
    );
    // The servers were asked once for both mentions.
    expect(ipc.mcpComposerItems).toHaveBeenCalledTimes(1);
  });

  it('shows a server’s words as plain text, its description cut to one line', async () => {
    const { user } = await setup();
    vi.mocked(ipc.mcpComposerItems).mockResolvedValue({
      resources: [
        {
          ...MCP_RESOURCES[0],
          name: '<img src=x onerror=alert(1)>',
          description: `<b>bold</b>\n${'long '.repeat(100)}`,
        },
      ],
      prompts: [],
      problems: [],
    });
    await user.type(box(), '@img');
    const option = await screen.findByRole('option', { name: /img/ });
    expect(option.querySelector('img, b')).toBeNull();
    expect(option).toHaveTextContent('<img src=x onerror=alert(1)>');
    const description = within(option).getByText(/^<b>bold<\/b> long/);
    expect(description.textContent).toHaveLength(160);
    expect(description.textContent?.endsWith('…')).toBe(true);
    expect(option.querySelector('[style]')).toBeNull();
  });

  it('says why a resource cannot be read, the way a file’s failure is said', async () => {
    const { user } = await setup();
    vi.mocked(ipc.mcpReadResource).mockRejectedValueOnce({
      code: 'mcp_server',
      message: 'docs: the resource is gone',
    });
    await user.type(box(), '@change');
    await screen.findByRole('option', { name: /Changelog/ });
    await user.keyboard('{Enter}');
    const notice = await screen.findByTestId('composer-notice');
    expect(notice).toHaveTextContent('docs: the resource is gone');
    expect(notice).toHaveAttribute('role', 'alert');
    expect(chips()).toHaveLength(0);
  });
});

describe('an MCP prompt chosen with /', () => {
  it('without arguments: its text fills the composer, to edit before sending', async () => {
    const { user } = await setup();
    await user.type(box(), '/sum');
    const option = await screen.findByRole('option', { name: /docs:summary/ });
    expect(option).toHaveAttribute('data-testid', 'command-option');
    expect(option).toHaveAttribute('data-kind', 'mcp-prompt');
    expect(option).toHaveAttribute('data-command', 'docs:summary');
    expect(option).toHaveTextContent('/docs:summary');
    expect(option).toHaveTextContent('prompt');
    expect(option).toHaveTextContent('Summarise the project.');
    await user.keyboard('{Enter}');
    expect(screen.queryByTestId('command-menu')).not.toBeInTheDocument();
    expect(ipc.mcpGetPrompt).toHaveBeenCalledWith('user', 'docs', 'summary', {});
    await waitFor(() => expect(box()).toHaveValue('Summarise the project in three sentences.'));
    expect(box()).toHaveFocus();
    expect(screen.queryByTestId('mcp-prompt-form')).not.toBeInTheDocument();
    expect(ipc.prompt).not.toHaveBeenCalled();
    // The person edits it, then sends it.
    await user.type(box(), ' Briefly.{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith(
      'Summarise the project in three sentences. Briefly.',
      [],
      [],
    );
  });

  it('with arguments: asks for them, refuses a blank required one, then fills the composer', async () => {
    const { user } = await setup();
    await user.type(box(), '/docs:rev');
    await screen.findByRole('option', { name: /docs:review/ });
    expect(screen.getByRole('option', { name: /docs:review/ })).toHaveTextContent(
      '/docs:review <path> [focus]',
    );
    await user.keyboard('{Enter}');

    const form = screen.getByTestId('mcp-prompt-form');
    expect(form).toHaveAttribute('data-command', '/docs:review');
    expect(box()).toHaveValue('/docs:review ');
    expect(fields().map((f) => f.dataset.name)).toEqual(['path', 'focus']);
    const [path, focus] = fields();
    await waitFor(() => expect(path).toHaveFocus());
    expect(path).toHaveAccessibleName('path');
    expect(form.querySelector(`label[for="${path.id}"]`)).toHaveTextContent('path *');
    expect(path).toHaveAttribute('aria-required', 'true');
    expect(path).toHaveAccessibleDescription('The file to review');
    expect(focus).toHaveAccessibleName('focus');
    expect(focus).toHaveAttribute('aria-required', 'false');

    // Blank: refused, the field marked and focused.
    await user.type(focus, 'errors');
    await user.click(screen.getByTestId('mcp-prompt-fill'));
    expect(ipc.mcpGetPrompt).not.toHaveBeenCalled();
    expect(path).toHaveAttribute('aria-invalid', 'true');
    expect(path).toHaveFocus();
    expect(path).toHaveAccessibleDescription('The file to review Required: fill it in.');
    await user.type(path, '   ');
    await user.keyboard('{Enter}');
    expect(ipc.mcpGetPrompt).not.toHaveBeenCalled();

    await user.clear(path);
    await user.type(path, 'src/main.rs{Enter}');
    expect(ipc.mcpGetPrompt).toHaveBeenCalledWith('user', 'docs', 'review', {
      path: 'src/main.rs',
      focus: 'errors',
    });
    await waitFor(() =>
      expect(box()).toHaveValue('Review src/main.rs with care. Focus on errors.'),
    );
    expect(box()).toHaveFocus();
    expect(screen.queryByTestId('mcp-prompt-form')).not.toBeInTheDocument();
    expect(ipc.prompt).not.toHaveBeenCalled();
  });

  it('takes what follows the command typed in full as its first required argument', async () => {
    const { user } = await setup();
    await user.type(box(), '/docs:review src/lib.rs{Enter}');
    await screen.findByTestId('mcp-prompt-form');
    expect(fields()[0]).toHaveValue('src/lib.rs');
    expect(fields()[1]).toHaveValue('');
    expect(box()).toHaveValue('/docs:review ');
    await user.click(screen.getByTestId('mcp-prompt-fill'));
    expect(ipc.mcpGetPrompt).toHaveBeenCalledWith('user', 'docs', 'review', {
      path: 'src/lib.rs',
    });
    await waitFor(() => expect(box()).toHaveValue('Review src/lib.rs with care.'));
  });

  it('closes the form with Esc or Cancel, filling nothing, the focus back in the message', async () => {
    const { user } = await setup();
    await user.type(box(), '/docs:review{Enter}');
    await waitFor(() => expect(fields()[0]).toHaveFocus());
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('mcp-prompt-form')).not.toBeInTheDocument();
    expect(box()).toHaveFocus();
    expect(box()).toHaveValue('/docs:review ');

    await user.keyboard('{Enter}');
    await waitFor(() => expect(fields()[0]).toHaveFocus());
    await user.click(screen.getByTestId('mcp-prompt-cancel'));
    expect(screen.queryByTestId('mcp-prompt-form')).not.toBeInTheDocument();
    expect(box()).toHaveFocus();
    expect(ipc.mcpGetPrompt).not.toHaveBeenCalled();
    expect(ipc.prompt).not.toHaveBeenCalled();
  });

  it('says what went wrong: in the form, or above the message', async () => {
    const { user } = await setup();
    vi.mocked(ipc.mcpGetPrompt).mockRejectedValueOnce({
      code: 'mcp_server',
      message: 'docs: <b>no such file</b>',
    });
    await user.type(box(), '/docs:review a.rs{Enter}');
    await user.click(await screen.findByTestId('mcp-prompt-fill'));
    const error = await screen.findByTestId('mcp-prompt-error');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveTextContent('/docs:review: docs: <b>no such file</b>');
    expect(error.querySelector('b')).toBeNull();
    expect(within(screen.getByTestId('mcp-prompt-form')).getByRole('alert')).toBe(error);
    expect(box()).toHaveValue('/docs:review ');

    // Without arguments: the alert above the message; the text stays as typed.
    await user.click(screen.getByTestId('mcp-prompt-cancel'));
    vi.mocked(ipc.mcpGetPrompt).mockRejectedValueOnce({
      code: 'mcp_not_approved',
      message: 'the MCP server "docs" is switched off or not approved',
    });
    await user.clear(box());
    await user.type(box(), '/docs:summary{Enter}');
    expect(await screen.findByTestId('mcp-prompt-error')).toHaveTextContent(
      '/docs:summary: the MCP server "docs" is switched off or not approved',
    );
    expect(screen.queryByTestId('mcp-prompt-form')).not.toBeInTheDocument();
    expect(box()).toHaveValue('/docs:summary');
    expect(ipc.prompt).not.toHaveBeenCalled();
  });

  it('lists every prompt of the servers, with its arguments', async () => {
    const { user } = await setup();
    await user.type(box(), '/docs');
    await waitFor(() =>
      expect(screen.getAllByTestId('command-option').map((o) => o.dataset.command)).toEqual(
        MCP_PROMPTS.map((p) => p.command.slice(1)).sort(),
      ),
    );
  });
});

describe('MCP servers that could not be asked', () => {
  const HOSTILE = 'evil: <img src=x onerror="alert(1)"> refused';

  function problems(): HTMLElement[] {
    return screen.queryAllByTestId('mcp-composer-problem');
  }

  async function withProblems(list: string[]) {
    const found = await setup();
    vi.mocked(ipc.mcpComposerItems).mockResolvedValue({
      resources: MCP_RESOURCES.map((resource) => ({ ...resource })),
      prompts: MCP_PROMPTS.map((prompt) => ({ ...prompt })),
      problems: list,
    });
    return found;
  }

  it('are noted under the @ menu as plain text, never an option', async () => {
    const { user } = await withProblems(['github: the server did not answer within 30 s', HOSTILE]);
    await user.type(box(), 'Read @gui');
    await screen.findByRole('option', { name: /Guide/ });
    await waitFor(() => expect(problems()).toHaveLength(2));
    const [github, evil] = problems();
    expect(github).toHaveAttribute('data-server', 'github');
    expect(github).toHaveTextContent(
      'github did not answer: the server did not answer within 30 s',
    );
    expect(evil).toHaveAttribute('data-server', 'evil');
    expect(evil).toHaveTextContent('evil did not answer: <img src=x onerror="alert(1)"> refused');
    expect(document.querySelector('img, [onerror]')).toBeNull();

    // Beside the listbox, in a note: no option, the arrow keys never reach it.
    const menu = screen.getByTestId('mention-menu');
    expect(menu).toHaveAttribute('role', 'listbox');
    expect(menu).not.toContainElement(github);
    expect(github.closest('[role="note"]')).not.toBeNull();
    expect(github).not.toHaveAttribute('role', 'option');
    const options = within(menu).getAllByRole('option');
    for (let i = 0; i < options.length + 1; i++) {
      const active = document.getElementById(box().getAttribute('aria-activedescendant') ?? '');
      expect(active).toHaveAttribute('role', 'option');
      expect(menu).toContainElement(active);
      await user.keyboard('{ArrowDown}');
    }
    // Chosen with Enter: still an option.
    await user.keyboard('{Enter}');
    expect(box().value).toMatch(/^Read @\S+ $/);
    expect(problems()).toHaveLength(0);
  });

  it('are noted under the / menu too, at most three, then how many more', async () => {
    const { user } = await withProblems([
      'a: down',
      'b: down',
      `c: ${'slow '.repeat(80)}`,
      'd: down',
      'e: down',
    ]);
    await user.type(box(), '/docs');
    await screen.findByRole('option', { name: /docs:summary/ });
    await waitFor(() => expect(problems()).toHaveLength(3));
    expect(problems().map((p) => p.dataset.server)).toEqual(['a', 'b', 'c']);
    const long = problems()[2];
    expect(long.textContent?.trim()).toHaveLength(160);
    expect(long.textContent?.trim().endsWith('…')).toBe(true);
    expect(long).toHaveAttribute('title', `c did not answer: ${'slow '.repeat(80).trim()}`);
    const note = long.closest('[role="note"]') as HTMLElement;
    expect(note).toHaveTextContent('and 2 more');
    expect(screen.getByTestId('command-menu')).not.toContainElement(note);
    expect(within(screen.getByTestId('command-menu')).queryAllByRole('note')).toHaveLength(0);

    // Esc closes the menu and its note.
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('command-menu')).not.toBeInTheDocument();
    expect(problems()).toHaveLength(0);
  });

  it('leave the menus as they were when every server answered', async () => {
    const { user } = await setup();
    await user.type(box(), '/docs');
    await screen.findByRole('option', { name: /docs:summary/ });
    expect(ipc.mcpComposerItems).toHaveBeenCalled();
    expect(problems()).toHaveLength(0);
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
  });
});
