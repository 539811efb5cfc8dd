import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { SessionListItem } from '../../ipc';
import { REPO, sessionItem, WORKTREE } from '../../test-ipc';
import { WorktreeStore } from '../../state/worktrees.svelte';
import SessionSidebar from './SessionSidebar.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

const SESSIONS = [
  sessionItem({
    id: 's2',
    title: 'Fix the parser',
    updated_at: Date.now(),
    message_count: 12,
    cost: 0.5,
  }),
  sessionItem({
    id: 's1',
    title: '<img src=x onerror=alert(1)>',
    updated_at: 0,
    message_count: 1,
    cost: 0,
  }),
];

function setup(
  currentId: string | null = 's2',
  worktrees = new WorktreeStore(),
  sessions: SessionListItem[] = SESSIONS,
) {
  vi.mocked(ipc.listSessions).mockResolvedValue(sessions);
  const props = {
    project: REPO,
    currentId,
    version: 0,
    worktrees,
    onopen: vi.fn(),
    onnew: vi.fn(),
    onnewworktree: vi.fn(async () => undefined),
    oncurrentdeleted: vi.fn(),
    onerror: vi.fn(),
  };
  render(SessionSidebar, props);
  return { props, user: userEvent.setup() };
}

beforeEach(() => vi.clearAllMocks());

describe('the session sidebar', () => {
  it('lists sessions most recent first, marking the open one; titles stay text', async () => {
    setup();
    const items = await screen.findAllByTestId('session-item');
    expect(items.map((item) => item.dataset.sessionId)).toEqual(['s2', 's1']);
    expect(within(items[0]).getByRole('button', { current: 'page' })).toBeInTheDocument();
    expect(items[0]).toHaveTextContent('12 messages · $0.500');
    expect(items[1]).toHaveTextContent('<img src=x onerror=alert(1)>');
    expect(document.querySelector('img')).toBeNull();
  });

  it('renames in place with Enter, and Escape cancels', async () => {
    const { user } = setup();
    const items = await screen.findAllByTestId('session-item');
    await user.click(within(items[0]).getByTestId('session-rename'));
    const input = screen.getByTestId('session-rename-input');
    await user.clear(input);
    await user.type(input, 'Parser fixed{Enter}');
    expect(ipc.renameSession).toHaveBeenCalledWith('s2', 'Parser fixed');
    await user.click(
      within(screen.getAllByTestId('session-item')[1]).getByTestId('session-rename'),
    );
    await user.type(screen.getByTestId('session-rename-input'), 'nope{Escape}');
    expect(ipc.renameSession).toHaveBeenCalledTimes(1);
  });

  it('deletes only after confirmation, with Cancel focused', async () => {
    const { user, props } = setup();
    const items = await screen.findAllByTestId('session-item');
    await user.click(within(items[0]).getByTestId('session-delete'));
    const dialog = screen.getByTestId('confirm-dialog');
    expect(dialog).toHaveTextContent('Fix the parser');
    expect(screen.getByTestId('confirm-cancel')).toHaveFocus();
    await user.click(screen.getByTestId('confirm-cancel'));
    expect(ipc.deleteSession).not.toHaveBeenCalled();
    await user.click(within(items[0]).getByTestId('session-delete'));
    await user.click(screen.getByTestId('confirm-ok'));
    expect(ipc.deleteSession).toHaveBeenCalledWith('s2');
    await waitFor(() => expect(props.oncurrentdeleted).toHaveBeenCalled());
  });

  it('searches and opens a hit at its node', async () => {
    vi.mocked(ipc.searchSessions).mockResolvedValue([
      {
        project_id: 'p1',
        project_root: REPO.path,
        session_id: 's1',
        session_title: 'Old chat',
        node_id: 'n9',
        kind: 'assistant',
        snippet: 'the [parser] was slow',
        created_at: 0,
      },
    ]);
    const { user, props } = setup();
    await user.type(screen.getByTestId('session-search'), 'parser');
    const hit = await screen.findByTestId('search-hit');
    expect(hit.querySelector('mark')).toHaveTextContent('parser');
    expect(ipc.searchSessions).toHaveBeenCalledWith('parser');
    await user.click(hit);
    expect(props.onopen).toHaveBeenCalledWith('s1', 'n9');
  });

  it('starts a new chat', async () => {
    const { user, props } = setup();
    await user.click(screen.getByTestId('new-session'));
    expect(props.onnew).toHaveBeenCalled();
  });
});

describe('exporting and importing chats', () => {
  it('exports the shown chat in the format picked and says where it went', async () => {
    const { user } = setup();
    await user.click(screen.getByTestId('session-export'));
    const formats = screen.getAllByTestId('session-export-format');
    expect(formats.map((button) => button.dataset.format)).toEqual(['markdown', 'jsonl', 'html']);
    expect(formats[0]).toHaveFocus();
    expect(screen.getByRole('group', { name: 'Export this chat as' })).toBeInTheDocument();
    await user.click(formats[2]);
    expect(ipc.exportSession).toHaveBeenCalledWith('html');
    await waitFor(() =>
      expect(screen.getByTestId('session-export-result')).toHaveTextContent(
        'Saved to /home/me/arbor-session.html',
      ),
    );
    expect(screen.getByTestId('session-export-result')).toHaveAttribute('role', 'status');
    expect(screen.getByTestId('session-export')).toHaveFocus();
  });

  it('says nothing when the save dialog is cancelled; Esc leaves the formats', async () => {
    vi.mocked(ipc.exportSession).mockResolvedValueOnce(null);
    const { user } = setup();
    await user.click(screen.getByTestId('session-export'));
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('session-export-format')).not.toBeInTheDocument();
    expect(screen.getByTestId('session-export')).toHaveFocus();
    await user.click(screen.getByTestId('session-export'));
    await user.click(screen.getAllByTestId('session-export-format')[0]);
    expect(ipc.exportSession).toHaveBeenCalledWith('markdown');
    await waitFor(() => expect(screen.getByTestId('session-export')).toBeEnabled());
    expect(screen.getByTestId('session-export-result')).toBeEmptyDOMElement();
  });

  it('has nothing to export before the chat is stored', async () => {
    setup(null);
    await screen.findAllByTestId('session-item');
    expect(screen.getByTestId('session-export')).toBeDisabled();
  });

  it('opens an imported chat as choosing it in the list does, and lists it', async () => {
    vi.mocked(ipc.importSession).mockResolvedValueOnce('s9');
    const { user, props } = setup();
    await screen.findAllByTestId('session-item');
    const lists = vi.mocked(ipc.listSessions).mock.calls.length;
    vi.mocked(ipc.listSessions).mockResolvedValue([
      sessionItem({
        id: 's9',
        title: 'Imported',
        updated_at: Date.now(),
        message_count: 3,
        cost: 0,
      }),
      ...SESSIONS,
    ]);
    await user.click(screen.getByTestId('session-import'));
    expect(ipc.importSession).toHaveBeenCalled();
    await waitFor(() => expect(props.onopen).toHaveBeenCalledWith('s9', null));
    await waitFor(() =>
      expect(vi.mocked(ipc.listSessions).mock.calls.length).toBeGreaterThan(lists),
    );
    expect(await screen.findByText('Imported')).toBeInTheDocument();
  });

  it('does nothing when the open dialog is cancelled, and reports a failure', async () => {
    vi.mocked(ipc.importSession)
      .mockResolvedValueOnce(null)
      .mockRejectedValueOnce({ code: 'unsupported', message: 'not a JSONL export' });
    const { user, props } = setup();
    await user.click(screen.getByTestId('session-import'));
    await waitFor(() => expect(screen.getByTestId('session-import')).toBeEnabled());
    expect(props.onopen).not.toHaveBeenCalled();
    await user.click(screen.getByTestId('session-import'));
    await waitFor(() =>
      expect(props.onerror).toHaveBeenCalledWith(
        expect.objectContaining({ code: 'unsupported', message: 'not a JSONL export' }),
      ),
    );
    expect(props.onopen).not.toHaveBeenCalled();
  });
});

describe('sessions and worktrees in the sidebar', () => {
  it('marks each session’s state and worktree, with a badge on one waiting unseen', async () => {
    const worktrees = new WorktreeStore();
    worktrees.opened('s2', null);
    worktrees.receive({ session_id: 's1', state: 'waiting', worktree: 'fix-parser', shown: false });
    worktrees.receive({ session_id: 's2', state: 'running', worktree: null, shown: true });
    const { props, user } = setup('s2', worktrees, [
      SESSIONS[0],
      { ...SESSIONS[1], worktree: 'fix-parser' },
      sessionItem({ id: 's3', title: 'Quiet', updated_at: 0, message_count: 1, cost: 0 }),
    ]);
    const [shown, waiting, quiet] = await screen.findAllByTestId('session-item');
    expect(quiet).toHaveAttribute('data-state', 'idle');
    expect(quiet).toHaveAttribute('data-worktree', '');
    expect(shown).toHaveAttribute('data-state', 'running');
    expect(shown).toHaveAttribute('data-worktree', '');
    expect(within(shown).queryByTestId('session-badge')).not.toBeInTheDocument();
    expect(waiting).toHaveAttribute('data-state', 'waiting');
    expect(waiting).toHaveAttribute('data-worktree', 'fix-parser');
    const tag = within(waiting).getByTestId('session-worktree');
    expect(tag).toHaveTextContent('fix-parser');
    expect(tag).toHaveAttribute('title', 'Works in the worktree fix-parser');
    expect(within(waiting).getByTestId('session-badge')).toHaveAccessibleName('needs your answer');
    await user.click(within(waiting).getByRole('button', { name: /needs your answer/ }));
    expect(props.onopen).toHaveBeenCalledWith('s1', null);
    // Answered elsewhere: the badge goes, the state follows.
    worktrees.receive({ session_id: 's1', state: 'running', worktree: 'fix-parser', shown: false });
    await waitFor(() =>
      expect(within(waiting).queryByTestId('session-badge')).not.toBeInTheDocument(),
    );
    expect(waiting).toHaveAttribute('data-state', 'running');
  });

  it('lists the worktrees; archiving shows what is kept and lost first, then restore', async () => {
    const { user } = setup();
    const row = await screen.findByTestId('worktree-row');
    expect(row).toHaveAttribute('data-name', 'fix-parser');
    expect(row).toHaveAttribute('data-branch', 'arbor/fix-parser');
    expect(row).toHaveAttribute('data-state', 'active');
    expect(row).toHaveTextContent('+2');
    expect(row).toHaveTextContent('−1');
    expect(row).toHaveTextContent('1 uncommitted · 1.5 MB');
    await user.click(within(row).getByTestId('worktree-archive'));
    expect(ipc.archivePreview).toHaveBeenCalledWith('fix-parser');
    const dialog = await screen.findByTestId('confirm-dialog');
    expect(dialog).toHaveTextContent('1 uncommitted file is kept in a snapshot');
    expect(within(dialog).getByRole('list', { name: 'Uncommitted files kept' })).toHaveTextContent(
      'src/parser.rs',
    );
    expect(dialog).toHaveTextContent('50 MB of ignored files');
    expect(dialog).toHaveTextContent('2 commits are not merged: they stay on the branch.');
    expect(screen.getByTestId('confirm-cancel')).toHaveFocus();
    await user.click(screen.getByTestId('confirm-cancel'));
    expect(ipc.archiveWorktree).not.toHaveBeenCalled();
    await user.click(within(row).getByTestId('worktree-archive'));
    await user.click(await screen.findByTestId('confirm-ok'));
    expect(ipc.archiveWorktree).toHaveBeenCalledWith('fix-parser');
    await waitFor(() =>
      expect(screen.getByTestId('worktree-row')).toHaveAttribute('data-state', 'archived'),
    );
    await user.click(screen.getByTestId('worktree-restore'));
    expect(ipc.restoreWorktree).toHaveBeenCalledWith('fix-parser');
    await waitFor(() =>
      expect(screen.getByTestId('worktree-row')).toHaveAttribute('data-state', 'active'),
    );
  });

  it('says when there is no worktree', async () => {
    vi.mocked(ipc.listWorktrees).mockResolvedValue([]);
    setup();
    expect(await screen.findByTestId('no-worktrees')).toHaveTextContent('No worktrees yet');
  });

  it('makes a worktree, asks before its setup runs, streams its output, then opens the chat', async () => {
    vi.mocked(ipc.createWorktree).mockResolvedValueOnce({
      worktree: { ...WORKTREE, name: 'fix-lexer', branch: 'arbor/fix-lexer' },
      included: ['.env.local'],
      setup: { command: 'npm ci\u202e', hash: 'h1', approved: false },
    });
    vi.mocked(ipc.runWorktreeSetup).mockImplementationOnce(async (_name, online) => {
      online('\u001b[1minstalling\u001b[0m');
      online('added 12 packages');
      return { command: 'npm ci', exit_code: 0, timed_out: false, sandboxed: true };
    });
    const { props, user } = setup();
    await user.click(screen.getByTestId('new-worktree-session'));
    const dialog = screen.getByTestId('new-worktree-dialog');
    expect(dialog).toHaveAttribute('open');
    expect(screen.getByTestId('worktree-name')).toHaveFocus();
    await user.type(screen.getByTestId('worktree-name'), 'fix-lexer');
    await user.type(screen.getByTestId('worktree-base'), 'develop');
    await user.click(screen.getByTestId('worktree-create'));
    expect(ipc.createWorktree).toHaveBeenCalledWith('fix-lexer', 'develop');
    // The exact command, hidden characters shown; nothing runs before the answer.
    const command = await screen.findByTestId('worktree-setup-command');
    expect(command.textContent).toBe('npm ci\\u{202E}');
    expect(dialog).toHaveTextContent('1 file copied from .worktreeinclude');
    expect(screen.getByTestId('worktree-setup-skip')).toHaveFocus();
    expect(ipc.approveWorktreeSetup).not.toHaveBeenCalled();
    expect(ipc.runWorktreeSetup).not.toHaveBeenCalled();
    expect(props.onnewworktree).not.toHaveBeenCalled();
    await user.click(screen.getByTestId('worktree-setup-approve'));
    expect(ipc.approveWorktreeSetup).toHaveBeenCalledWith('h1');
    await waitFor(() => expect(ipc.runWorktreeSetup).toHaveBeenCalled());
    expect(vi.mocked(ipc.runWorktreeSetup).mock.calls[0][0]).toBe('fix-lexer');
    const log = await screen.findByTestId('worktree-setup-log');
    expect(log).toHaveAttribute('role', 'log');
    expect(log).toHaveAttribute('aria-live', 'polite');
    await waitFor(() => expect(log).toHaveTextContent('installing'));
    expect(log.textContent).toBe('installingadded 12 packages');
    await waitFor(() => expect(props.onnewworktree).toHaveBeenCalledWith('fix-lexer'));
    const result = await screen.findByTestId('worktree-setup-result');
    expect(result).toHaveAttribute('data-ok', 'true');
    expect(ipc.listWorktrees).toHaveBeenCalled();
    await user.click(screen.getByTestId('worktree-done'));
    expect(screen.queryByTestId('new-worktree-dialog')).not.toBeInTheDocument();
  });

  it('says plainly when the setup fails, and still opens the chat', async () => {
    vi.mocked(ipc.createWorktree).mockResolvedValueOnce({
      worktree: WORKTREE,
      included: [],
      setup: { command: 'make deps', hash: 'h2', approved: true },
    });
    vi.mocked(ipc.runWorktreeSetup).mockImplementationOnce(async (_name, online) => {
      online('make: *** No rule to make target');
      return { command: 'make deps', exit_code: 2, timed_out: false, sandboxed: true };
    });
    const { props, user } = setup();
    await user.click(screen.getByTestId('new-worktree-session'));
    await user.click(screen.getByTestId('worktree-create'));
    expect(ipc.createWorktree).toHaveBeenCalledWith(null, null);
    // Approved before: it runs at once.
    const result = await screen.findByTestId('worktree-setup-result');
    expect(ipc.approveWorktreeSetup).not.toHaveBeenCalled();
    expect(result).toHaveAttribute('data-ok', 'false');
    expect(result).toHaveAttribute('role', 'alert');
    expect(result).toHaveTextContent('failed with exit code 2');
    expect(result).toHaveTextContent('The chat opened anyway');
    expect(props.onnewworktree).toHaveBeenCalledWith('fix-parser');
    expect(screen.getByTestId('worktree-setup-log')).toHaveTextContent('No rule to make target');
  });

  it('skips the setup, or shows why a worktree could not be made', async () => {
    vi.mocked(ipc.createWorktree)
      .mockRejectedValueOnce({ code: 'worktree_exists', message: 'a worktree fix-parser exists' })
      .mockResolvedValueOnce({
        worktree: WORKTREE,
        included: [],
        setup: { command: 'npm ci', hash: 'h3', approved: false },
      });
    const { props, user } = setup();
    await user.click(screen.getByTestId('new-worktree-session'));
    await user.type(screen.getByTestId('worktree-name'), 'fix-parser');
    await user.click(screen.getByTestId('worktree-create'));
    const error = await screen.findByTestId('worktree-error');
    expect(error).toHaveTextContent('a worktree fix-parser exists');
    await user.click(screen.getByTestId('worktree-create'));
    await user.click(await screen.findByTestId('worktree-setup-skip'));
    await waitFor(() => expect(props.onnewworktree).toHaveBeenCalledWith('fix-parser'));
    expect(ipc.runWorktreeSetup).not.toHaveBeenCalled();
    await waitFor(() =>
      expect(screen.queryByTestId('new-worktree-dialog')).not.toBeInTheDocument(),
    );
  });

  it('makes a worktree without a setup command and opens its chat at once', async () => {
    const { props, user } = setup();
    await user.click(screen.getByTestId('new-worktree-session'));
    await user.type(screen.getByTestId('worktree-name'), 'quick{Enter}');
    await waitFor(() => expect(props.onnewworktree).toHaveBeenCalledWith('quick'));
    await waitFor(() =>
      expect(screen.queryByTestId('new-worktree-dialog')).not.toBeInTheDocument(),
    );
  });
});
