import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { AgentMessage, ProjectInfo, SessionView, TreeNodeView } from '../../ipc/wire';
import {
  appendedEvent,
  BASH_REQUEST,
  EMPTY_VIEW,
  emit,
  emitActivity,
  entryOf,
  REPO,
  reply,
  REVIEW,
  sessionItem,
  TREE,
} from '../../test-ipc';
import ProjectView from '../project/ProjectView.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

const PLAIN = sessionItem({
  id: 's1',
  title: 'Plain chat',
  updated_at: 2,
  message_count: 2,
  cost: 0,
});
const OTHER = sessionItem({
  id: 's3',
  title: 'Other chat',
  updated_at: 1,
  message_count: 2,
  cost: 0,
});
const IN_WORKTREE = {
  ...sessionItem({ id: 's2', title: 'Parser work', updated_at: 3, message_count: 4, cost: 0 }),
  worktree: 'fix-parser',
};

beforeEach(() => {
  vi.clearAllMocks();
  vi.mocked(ipc.listSessions).mockResolvedValue([IN_WORKTREE, PLAIN, OTHER]);
});

async function openWindow(project: ProjectInfo = REPO) {
  const user = userEvent.setup();
  render(ProjectView, {
    project,
    appLabel: 'Arbor 0.1.0',
    onclose: vi.fn(),
    onerror: vi.fn(),
    onopenpath: vi.fn(),
  });
  await waitFor(() => expect(ipc.startSession).toHaveBeenCalled());
  await screen.findByTestId('chat-empty');
  await screen.findAllByTestId('session-item');
  return user;
}

function item(id: string): HTMLElement {
  const found = screen
    .getAllByTestId('session-item')
    .find((element) => element.dataset.sessionId === id);
  if (!found) throw new Error(`no session item ${id}`);
  return found;
}

async function pick(user: ReturnType<typeof userEvent.setup>, id: string) {
  await user.click(within(item(id)).getAllByRole('button')[0]);
}

describe('opening sessions', () => {
  it('watches the window’s sessions when the project opens', async () => {
    await openWindow();
    expect(ipc.watchSessions).toHaveBeenCalledTimes(1);
    expect(ipc.backgroundSessions).toHaveBeenCalled();
  });

  it('opens a session of a worktree with a stream of its own, and plain ones as before', async () => {
    const user = await openWindow();
    await pick(user, 's1');
    expect(ipc.switchSession).toHaveBeenCalledWith('s1', null);
    expect(ipc.openSession).not.toHaveBeenCalled();
    await pick(user, 's2');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith('s2', null, expect.any(Function)),
    );
    // The shown session works in a worktree: its review can be opened.
    expect(await screen.findByTestId('review-toggle')).toHaveAttribute('aria-pressed', 'false');
    // Leaving the worktree for a plain session: its own stream too.
    await pick(user, 's1');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith('s1', null, expect.any(Function)),
    );
    await waitFor(() => expect(screen.queryByTestId('review-toggle')).not.toBeInTheDocument());
  });

  it('keeps a running chat going in the background; its question comes back when shown again', async () => {
    const user = await openWindow();
    vi.mocked(ipc.switchSession).mockResolvedValueOnce({ ...EMPTY_VIEW, session_id: 's1' });
    await pick(user, 's1');
    await waitFor(() => expect(item('s1').querySelector('[aria-current="page"]')).not.toBeNull());
    emit({ type: 'agent_start' });
    emit({ type: 'permission_requested', request: BASH_REQUEST });
    expect(await screen.findByTestId('permission-dialog')).toHaveAttribute(
      'data-request-id',
      'pr-1',
    );
    // Another chat while this one runs: it goes on in the background.
    await pick(user, 's3');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith('s3', null, expect.any(Function)),
    );
    expect(ipc.switchSession).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument());
    emitActivity({ session_id: 's1', state: 'waiting', worktree: null, shown: false });
    const badge = await within(item('s1')).findByTestId('session-badge');
    expect(badge).toHaveAccessibleName('needs your answer');
    expect(item('s1')).toHaveAttribute('data-state', 'waiting');
    // Shown again: its live stream, and the question it waits on.
    await pick(user, 's1');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith('s1', null, expect.any(Function)),
    );
    expect(await screen.findByTestId('permission-dialog')).toHaveAttribute(
      'data-request-id',
      'pr-1',
    );
    await waitFor(() =>
      expect(within(item('s1')).queryByTestId('session-badge')).not.toBeInTheDocument(),
    );
  });

  it('starts a new chat in the background’s stead when the chat runs', async () => {
    const user = await openWindow();
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    await user.keyboard('{Control>}n{/Control}');
    // It runs in the project's own folder: asked first.
    await user.click(await screen.findByTestId('folder-chat-anyway'));
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith(null, null, expect.any(Function)),
    );
    expect(ipc.newSession).not.toHaveBeenCalled();
    await user.keyboard('{Control>}n{/Control}');
    await waitFor(() => expect(ipc.newSession).toHaveBeenCalledTimes(1));
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
  });

  it('opens the new chat of a worktree just made in that worktree', async () => {
    const user = await openWindow();
    await user.click(screen.getByTestId('new-worktree-session'));
    await user.type(screen.getByTestId('worktree-name'), 'fix-parser{Enter}');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith(null, 'fix-parser', expect.any(Function)),
    );
    expect(await screen.findByTestId('review-toggle')).toBeInTheDocument();
  });
});

async function openReview() {
  const user = await openWindow();
  await pick(user, 's2');
  const toggle = await screen.findByTestId('review-toggle');
  await user.click(toggle);
  const pane = await screen.findByTestId('review-pane');
  await waitFor(() => expect(within(pane).getAllByTestId('review-file')).toHaveLength(2));
  return { user, pane, toggle };
}

describe('a second chat in the project’s folder', () => {
  it('warns while the shown chat runs there; "Here anyway" starts it in the folder', async () => {
    const user = await openWindow();
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    await user.click(screen.getByTestId('new-session'));
    const dialog = await screen.findByTestId('confirm-dialog');
    expect(dialog).toHaveTextContent('Another chat is running in this folder');
    expect(dialog).toHaveTextContent(
      "Two agents changing the same files in one folder can overwrite each other's work.",
    );
    expect(within(dialog).getByTestId('confirm-ok')).toHaveTextContent('New chat in a worktree');
    expect(within(dialog).getByTestId('folder-chat-anyway')).toHaveTextContent('Here anyway');
    expect(within(dialog).getByTestId('confirm-cancel')).toHaveFocus();
    expect(ipc.openSession).not.toHaveBeenCalled();
    expect(ipc.newSession).not.toHaveBeenCalled();
    await user.click(within(dialog).getByTestId('folder-chat-anyway'));
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith(null, null, expect.any(Function)),
    );
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
  });

  it('offers the new chat a worktree instead; Cancel does nothing', async () => {
    const user = await openWindow();
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    await user.keyboard('{Control>}n{/Control}');
    await user.click(await screen.findByTestId('confirm-cancel'));
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
    expect(ipc.openSession).not.toHaveBeenCalled();
    expect(ipc.newSession).not.toHaveBeenCalled();
    expect(screen.getByTestId('stop')).toBeInTheDocument();
    await user.keyboard('{Control>}n{/Control}');
    await user.click(await screen.findByTestId('confirm-ok'));
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
    expect(await screen.findByTestId('new-worktree-dialog')).toBeInTheDocument();
    await user.type(screen.getByTestId('worktree-name'), 'fix-parser{Enter}');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith(null, 'fix-parser', expect.any(Function)),
    );
    expect(ipc.openSession).toHaveBeenCalledTimes(1);
  });

  it('does not warn when the running chat works in a worktree', async () => {
    const user = await openWindow();
    await pick(user, 's2');
    await screen.findByTestId('review-toggle');
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    await user.keyboard('{Control>}n{/Control}');
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith(null, null, expect.any(Function)),
    );
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
  });

  it('offers no worktree in a folder that is not a git repository', async () => {
    const user = await openWindow({ ...REPO, is_git_repo: false });
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    await user.keyboard('{Control>}n{/Control}');
    const dialog = await screen.findByTestId('confirm-dialog');
    expect(dialog).toHaveTextContent('Another chat is running in this folder');
    expect(within(dialog).queryByTestId('folder-chat-anyway')).not.toBeInTheDocument();
    await user.click(within(dialog).getByTestId('confirm-ok'));
    await waitFor(() =>
      expect(ipc.openSession).toHaveBeenCalledWith(null, null, expect.any(Function)),
    );
  });
});

const [U1, , , A1B] = TREE.nodes;
/** The worktree's session as stored: one turn, `u1` answered by `a1b`. */
const ONE_TURN: SessionView = {
  ...EMPTY_VIEW,
  session_id: 's2',
  entries: [entryOf(TREE, U1), entryOf(TREE, A1B)],
};

/** Opens the review of `s2`, stored as `view`. */
async function openReviewOf(view: SessionView) {
  const real = vi.mocked(ipc.openSession).getMockImplementation();
  vi.mocked(ipc.openSession).mockImplementationOnce(async (id, worktree, onevent) => {
    await real?.(id, worktree, onevent);
    return view;
  });
  return openReview();
}

/** A node of the worktree's session as the stream names it. */
function stored(node: TreeNodeView) {
  return { ...appendedEvent(node), session_id: 's2' };
}

describe('the review pane’s last turn', () => {
  it('shows the files the last turn changed with their patches, read only, first', async () => {
    const { pane } = await openReviewOf(ONE_TURN);
    const section = await within(pane).findByTestId('review-last-turn');
    expect(ipc.diffNodes).toHaveBeenCalledWith('u1', 'a1b');
    const files = await within(section).findAllByTestId('review-last-turn-file');
    expect(files.map((file) => file.dataset.path)).toEqual(['src/parser.rs', 'src/lexer.rs']);
    expect(section).toHaveTextContent('Last turn');
    expect(within(files[0]).getByText('let tokens = lex();').closest('tr')).toHaveClass('add');
    expect(files[1]).toHaveTextContent('from src/lex.rs');
    expect(within(section).queryByRole('button')).not.toBeInTheDocument();
    expect(within(section).queryByTestId('review-file')).not.toBeInTheDocument();
    // Above "Committed on …".
    const committed = within(pane).getByText(/Committed on/);
    expect(
      section.compareDocumentPosition(committed) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
  });

  it('reads the new last turn once a run ended, not while it runs', async () => {
    await openReviewOf(ONE_TURN);
    await screen.findAllByTestId('review-last-turn-file');
    vi.mocked(ipc.diffNodes).mockImplementationOnce(async (from, to) => ({
      from_node: from,
      to_node: to,
      from_snapshot: 'snap-b',
      to_snapshot: 'snap-b',
      files: [],
    }));
    const ask: AgentMessage = { role: 'user', content: [{ type: 'text', text: 'more' }] };
    const u3 = { ...U1, id: 'u3', parent_id: 'a1b', first_line: 'more' };
    const a3 = { ...A1B, id: 'a3', parent_id: 'u3', first_line: 'Nothing to change.' };
    const answer = reply(a3.first_line);
    emit(
      { type: 'agent_start' },
      { type: 'message_start', message: ask },
      { type: 'message_end', message: ask },
      stored(u3),
    );
    await screen.findByTestId('stop');
    expect(ipc.diffNodes).toHaveBeenCalledTimes(1);
    emit(
      { type: 'message_start', message: answer },
      { type: 'message_end', message: answer },
      stored(a3),
      { type: 'agent_end', messages: [], status: 'completed' },
    );
    await waitFor(() => expect(ipc.diffNodes).toHaveBeenLastCalledWith('u3', 'a3'));
    const section = screen.getByTestId('review-last-turn');
    await waitFor(() => expect(section).toHaveTextContent('The last turn changed no files'));
    expect(within(section).queryByTestId('review-last-turn-file')).not.toBeInTheDocument();
    expect(ipc.diffNodes).toHaveBeenCalledTimes(2);
    expect(ipc.reviewWorktree).toHaveBeenCalledTimes(2);
  });
});

describe('the review pane', () => {
  it('shows what the worktree committed and did not, file by file and hunk by hunk', async () => {
    const { pane, toggle } = await openReview();
    // No user message stored yet: no last turn.
    expect(within(pane).queryByTestId('review-last-turn')).not.toBeInTheDocument();
    expect(ipc.diffNodes).not.toHaveBeenCalled();
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(ipc.reviewWorktree).toHaveBeenCalledWith('fix-parser');
    expect(pane).toHaveTextContent('Committed on arbor/fix-parser');
    expect(pane).toHaveTextContent('Not committed');
    const [committed, uncommitted] = within(pane).getAllByTestId('review-file');
    expect(committed).toHaveAttribute('data-path', 'src/lexer.rs');
    expect(committed).toHaveAttribute('data-status', 'added');
    expect(within(committed).queryByTestId('review-discard-file')).not.toBeInTheDocument();
    expect(within(committed).queryByTestId('review-discard-hunk')).not.toBeInTheDocument();
    expect(uncommitted).toHaveAttribute('data-path', 'src/parser.rs');
    expect(uncommitted).toHaveAttribute('data-status', 'modified');
    const hunks = within(uncommitted).getAllByTestId('review-hunk');
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toHaveTextContent('@@ -1,2 +1,3 @@');
    expect(hunks[0].querySelectorAll('.add')).toHaveLength(2);
    expect(hunks[0].querySelectorAll('.del')).toHaveLength(1);
    expect(hunks[0].querySelector('.del')).toHaveTextContent('todo!()');
    expect(within(uncommitted).getAllByTestId('review-discard-hunk')).toHaveLength(2);
    expect(within(uncommitted).getByTestId('review-discard-file')).toBeInTheDocument();
  });

  it('discards a hunk by its id, and a file whole; each answers the new review', async () => {
    const { user, pane } = await openReview();
    const uncommitted = within(pane).getAllByTestId('review-file')[1];
    vi.mocked(ipc.discardChange).mockResolvedValueOnce({
      ...REVIEW,
      uncommitted: [{ ...REVIEW.uncommitted[0], hunks: [REVIEW.uncommitted[0].hunks[1]] }],
    });
    await user.click(within(uncommitted).getAllByTestId('review-discard-hunk')[0]);
    expect(ipc.discardChange).toHaveBeenCalledWith(
      'fix-parser',
      'src/parser.rs',
      '@@ -1,2 +1,3 @@#0000000000000002',
    );
    await waitFor(() => expect(within(pane).getAllByTestId('review-hunk')).toHaveLength(2));
    await user.click(within(pane).getByTestId('review-discard-file'));
    expect(ipc.discardChange).toHaveBeenLastCalledWith('fix-parser', 'src/parser.rs', null);
    await waitFor(() => expect(within(pane).getAllByTestId('review-file')).toHaveLength(1));
    expect(pane).toHaveTextContent('No changes');
    // Nothing left to commit: Commit waits even with a message.
    await user.type(screen.getByTestId('commit-message'), 'Fix the parser');
    expect(screen.getByTestId('commit-submit')).toBeDisabled();
  });

  it('commits with a message, then reads the review again', async () => {
    const { user } = await openReview();
    const submit = screen.getByTestId('commit-submit');
    expect(submit).toBeDisabled();
    await user.type(screen.getByTestId('commit-message'), 'Fix the parser');
    expect(submit).toBeEnabled();
    await user.click(submit);
    expect(ipc.commitWorktree).toHaveBeenCalledWith('fix-parser', 'Fix the parser');
    expect(await screen.findByTestId('commit-result')).toHaveTextContent(
      'Committed 1 file on arbor/fix-parser (c0ffee1).',
    );
    expect(screen.getByTestId('commit-message')).toHaveValue('');
    expect(ipc.reviewWorktree).toHaveBeenCalledTimes(2);
  });

  it('shows a merge conflict’s files and that nothing changed; pushes', async () => {
    const { user } = await openReview();
    vi.mocked(ipc.mergeWorktree).mockResolvedValueOnce({
      outcome: 'conflict',
      files: ['src/parser.rs', 'src/<b>lexer</b>.rs'],
    });
    await user.click(screen.getByTestId('merge-submit'));
    expect(ipc.mergeWorktree).toHaveBeenCalledWith('fix-parser');
    const result = await screen.findByTestId('merge-result');
    expect(result).toHaveAttribute('data-outcome', 'conflict');
    expect(result).toHaveAttribute('role', 'alert');
    expect(result).toHaveTextContent('would conflict in 2 files. Nothing was changed.');
    expect(
      within(result)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['src/parser.rs', 'src/<b>lexer</b>.rs']);
    expect(result.querySelector('b')).toBeNull();
    await user.click(screen.getByTestId('merge-submit'));
    await waitFor(() =>
      expect(screen.getByTestId('merge-result')).toHaveAttribute('data-outcome', 'fast_forward'),
    );
    await user.click(screen.getByTestId('push-submit'));
    expect(await screen.findByTestId('push-result')).toHaveTextContent(
      'Pushed arbor/fix-parser (c0ffee1) to https://github.com/owner/repo.git.',
    );
  });

  it('shows a failed action with its code', async () => {
    const { user } = await openReview();
    vi.mocked(ipc.pushWorktree).mockRejectedValueOnce({
      code: 'push_rejected',
      message: 'the remote has commits this branch lacks',
    });
    await user.click(screen.getByTestId('push-submit'));
    const error = await screen.findByTestId('review-error');
    expect(error).toHaveAttribute('data-code', 'push_rejected');
    expect(error).toHaveTextContent('Could not push: the remote has commits this branch lacks');
  });

  it('reads the review again after a run of the shown session, and Esc closes it', async () => {
    const { user, toggle } = await openReview();
    emit({ type: 'agent_start' });
    emit({ type: 'agent_end', messages: [], status: 'completed' });
    await waitFor(() => expect(ipc.reviewWorktree).toHaveBeenCalledTimes(2));
    // Another run: Esc in the pane must not stop it.
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    screen.getByTestId('commit-message').focus();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('review-pane')).not.toBeInTheDocument());
    // Not the chat's Esc: the run was not stopped.
    expect(ipc.abort).not.toHaveBeenCalled();
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await waitFor(() => expect(screen.getByTestId('review-toggle')).toHaveFocus());
  });
});
