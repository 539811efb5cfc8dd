// The tree panel and the code state: the files-changed badge, "Restore files to here" with its
// preview, "Undo restore", and the compare view's Files tab.
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import { landedAt, REPO, TREE } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
  vi.mocked(ipc.sessionTree).mockImplementation(async () => TREE);
  vi.mocked(ipc.visitNode).mockImplementation(async (id) => landedAt(TREE, id));
  vi.mocked(ipc.canUndoRestore).mockResolvedValue(false);
});

function node(id: string): HTMLElement {
  const found = screen.getAllByTestId('tree-node').find((el) => el.dataset.nodeId === id);
  if (!found) throw new Error(`no tree node ${id}`);
  return found;
}

async function openTree() {
  const user = userEvent.setup();
  vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
  render(App);
  await screen.findByTestId('composer');
  await user.click(screen.getByTestId('tree-toggle'));
  await screen.findByTestId('tree-view');
  await waitFor(() => expect(screen.getAllByTestId('tree-node')).toHaveLength(4));
  return user;
}

function menu() {
  return within(screen.getByTestId('node-menu'));
}

/** Selects `id`, opens its restore dialog and waits for the preview. */
async function openRestore(user: ReturnType<typeof userEvent.setup>, id: string) {
  node(id).focus();
  await user.click(await screen.findByTestId('restore-files'));
  const dialog = await screen.findByTestId('restore-dialog');
  return dialog;
}

function rows() {
  return screen.queryAllByTestId('restore-change').map((row) => ({
    path: row.dataset.path,
    action: row.dataset.action,
    outside: row.dataset.outside,
  }));
}

describe('the files-changed badge', () => {
  it('shows on turns that changed files, with the paths in its name', async () => {
    await openTree();
    // a1's tool result changed src/parser.rs: the badge is on the turn it folds into.
    const badge = within(node('a1')).getByTestId('node-files-badge');
    expect(badge).toHaveAttribute('data-count', '1');
    expect(badge).toHaveTextContent('1 file');
    expect(badge).toHaveAccessibleName('1 file changed: src/parser.rs');
    expect(node('a1')).toHaveAccessibleName(/1 file changed/);
    expect(within(node('u1')).queryByTestId('node-files-badge')).not.toBeInTheDocument();
    expect(within(node('a1b')).queryByTestId('node-files-badge')).not.toBeInTheDocument();
  });
});

describe('restoring files to a turn', () => {
  it('previews the changes, restores them and goes to the turn', async () => {
    const user = await openTree();
    const dialog = await openRestore(user, 'a1');
    // The turn's files are those after its tool results: the restore is to its last node.
    expect(ipc.previewRestore).toHaveBeenCalledWith('t1');
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(rows()).toEqual([
      { path: 'src/parser.rs', action: 'write', outside: 'false' },
      { path: 'src/scratch.rs', action: 'delete', outside: 'false' },
    ]);
    const preview = within(dialog).getByTestId('restore-preview');
    expect(preview).toHaveTextContent('1 file written, 1 file deleted');
    expect(preview).not.toHaveTextContent('changed outside Arbor');
    expect(within(dialog).getByTestId('restore-visit')).toBeChecked();
    expect(within(dialog).getByTestId('restore-cancel')).toHaveFocus();
    const confirm = within(dialog).getByTestId('restore-confirm');
    expect(confirm).toHaveTextContent('Restore 2 files');
    await user.click(confirm);
    expect(ipc.restoreFiles).toHaveBeenCalledWith('t1', false, true);
    await waitFor(() => expect(screen.queryByTestId('restore-dialog')).not.toBeInTheDocument());
    // The chat went to the turn, as a visit does; the status says what happened.
    await waitFor(() =>
      expect(screen.getAllByTestId('message').map((m) => m.dataset.nodeId)).toEqual(['u1', 'a1']),
    );
    expect(await screen.findByText('Restored 2 files (1 deleted)')).toBeInTheDocument();
    expect(screen.getByTestId('undo-restore')).toBeEnabled();
  });

  it('marks files changed outside Arbor and only then overwrites them', async () => {
    vi.mocked(ipc.previewRestore).mockResolvedValueOnce({
      node_id: 't1',
      snapshot: 'snap-a',
      changes: [
        { path: 'src/parser.rs', write: true, changed_outside: true },
        { path: 'README.md', write: true, changed_outside: false },
      ],
    });
    const user = await openTree();
    const dialog = await openRestore(user, 'a1');
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(rows()[0]).toEqual({ path: 'src/parser.rs', action: 'write', outside: 'true' });
    expect(rows()[1]).toEqual({ path: 'README.md', action: 'write', outside: 'false' });
    expect(screen.getAllByTestId('restore-change')[0]).toHaveTextContent('changed outside Arbor');
    expect(screen.getAllByTestId('restore-change')[1]).not.toHaveTextContent('changed outside');
    const confirm = within(dialog).getByTestId('restore-confirm');
    expect(confirm).toHaveTextContent('Overwrite 1 changed file and restore');
    // Without going there: the chat stays where it is.
    await user.click(within(dialog).getByTestId('restore-visit'));
    await user.click(confirm);
    expect(ipc.restoreFiles).toHaveBeenCalledWith('t1', true, false);
    await waitFor(() => expect(screen.queryByTestId('restore-dialog')).not.toBeInTheDocument());
    expect(await screen.findByText('Restored 2 files (1 deleted)')).toBeInTheDocument();
    expect(screen.queryAllByTestId('message')).toHaveLength(0);
  });

  it('puts a user turn back into the composer when it goes there', async () => {
    const user = await openTree();
    const dialog = await openRestore(user, 'u2');
    expect(ipc.previewRestore).toHaveBeenCalledWith('u2');
    await waitFor(() => expect(within(dialog).getByTestId('restore-confirm')).toBeEnabled());
    await user.click(within(dialog).getByTestId('restore-confirm'));
    expect(ipc.restoreFiles).toHaveBeenCalledWith('u2', false, true);
    await waitFor(() => expect(screen.getByTestId('composer')).toHaveValue('text of u2'));
  });

  it('does nothing on Cancel or Esc, and the focus goes back to the menu', async () => {
    const user = await openTree();
    const dialog = await openRestore(user, 'a1');
    await waitFor(() => expect(rows()).toHaveLength(2));
    await user.click(within(dialog).getByTestId('restore-cancel'));
    expect(screen.queryByTestId('restore-dialog')).not.toBeInTheDocument();
    expect(menu().getByTestId('restore-files')).toHaveFocus();
    await user.click(menu().getByTestId('restore-files'));
    await screen.findByTestId('restore-dialog');
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('restore-dialog')).not.toBeInTheDocument();
    expect(ipc.restoreFiles).not.toHaveBeenCalled();
    expect(screen.queryByTestId('undo-restore')).not.toBeInTheDocument();
  });

  it('shows errors in the dialog, and an empty preview restores nothing', async () => {
    vi.mocked(ipc.restoreFiles).mockRejectedValueOnce(
      new ipc.ArborError('busy', 'A run is active: wait for it to finish.'),
    );
    const user = await openTree();
    let dialog = await openRestore(user, 'a1');
    await waitFor(() => expect(within(dialog).getByTestId('restore-confirm')).toBeEnabled());
    await user.click(within(dialog).getByTestId('restore-confirm'));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('A run is active: wait for it to finish.');
    expect(screen.getByTestId('restore-dialog')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('restore-cancel'));

    vi.mocked(ipc.previewRestore).mockRejectedValueOnce(
      new ipc.ArborError('no_code_state', 'This node was stored before files were recorded.'),
    );
    dialog = await openRestore(user, 'a1');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'This node was stored before files were recorded.',
    );
    expect(within(dialog).getByTestId('restore-confirm')).toBeDisabled();
    await user.click(within(dialog).getByTestId('restore-cancel'));

    vi.mocked(ipc.previewRestore).mockResolvedValueOnce({
      node_id: 't1',
      snapshot: 'snap-a',
      changes: [],
    });
    dialog = await openRestore(user, 'a1');
    await waitFor(() =>
      expect(within(dialog).getByTestId('restore-preview')).toHaveTextContent(
        'nothing would change',
      ),
    );
    expect(rows()).toHaveLength(0);
    expect(within(dialog).getByTestId('restore-confirm')).toBeDisabled();
    expect(ipc.restoreFiles).toHaveBeenCalledTimes(1);
  });
});

describe('undoing a restore', () => {
  it('shows when the project has a restore to undo, and undoes it', async () => {
    vi.mocked(ipc.canUndoRestore).mockResolvedValue(true);
    const user = await openTree();
    const undo = await screen.findByTestId('undo-restore');
    expect(undo).toHaveTextContent('Undo restore');
    await user.click(undo);
    expect(ipc.undoRestore).toHaveBeenCalledWith(false);
    expect(await screen.findByText('Undone: 2 files changed back (1 deleted)')).toHaveAttribute(
      'aria-live',
      'polite',
    );
  });

  it('asks before overwriting files changed outside Arbor', async () => {
    vi.mocked(ipc.canUndoRestore).mockResolvedValue(true);
    const changed = new ipc.ArborError('changed_outside', 'src/parser.rs changed outside Arbor');
    vi.mocked(ipc.undoRestore).mockRejectedValueOnce(changed);
    const user = await openTree();
    await user.click(await screen.findByTestId('undo-restore'));
    const ask = await screen.findByTestId('confirm-dialog');
    expect(ask).toHaveTextContent('src/parser.rs changed outside Arbor');
    // Cancel: nothing more.
    await user.click(within(ask).getByTestId('confirm-cancel'));
    expect(ipc.undoRestore).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.getByTestId('undo-restore')).toHaveFocus());

    vi.mocked(ipc.undoRestore).mockRejectedValueOnce(changed);
    await user.click(screen.getByTestId('undo-restore'));
    await user.click(within(await screen.findByTestId('confirm-dialog')).getByTestId('confirm-ok'));
    expect(ipc.undoRestore).toHaveBeenLastCalledWith(true);
    expect(await screen.findByText(/^Undone/)).toBeInTheDocument();
  });

  it('hides the button when there is nothing to undo', async () => {
    vi.mocked(ipc.canUndoRestore).mockResolvedValue(true);
    vi.mocked(ipc.undoRestore).mockRejectedValueOnce(
      new ipc.ArborError('nothing_to_undo', 'No restore to undo.'),
    );
    const user = await openTree();
    await user.click(await screen.findByTestId('undo-restore'));
    expect(await screen.findByText('Nothing to undo')).toBeInTheDocument();
    expect(screen.queryByTestId('undo-restore')).not.toBeInTheDocument();
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
  });
});

describe('the compare view’s Files tab', () => {
  async function compare(user: ReturnType<typeof userEvent.setup>) {
    node('a1').focus();
    await user.click(await screen.findByTestId('compare-select'));
    node('a1b').focus();
    await waitFor(() =>
      expect(menu().getByTestId('compare-select')).toHaveTextContent('Compare with A'),
    );
    await user.click(menu().getByTestId('compare-select'));
    return screen.findByTestId('compare-view');
  }

  it('lists the files that differ between the two turns, with their patches', async () => {
    const user = await openTree();
    const view = await compare(user);
    const tab = within(view).getByTestId('compare-files');
    expect(tab).toHaveAttribute('role', 'tab');
    expect(tab).toBeEnabled();
    expect(ipc.diffNodes).not.toHaveBeenCalled();
    await user.click(tab);
    expect(tab).toHaveAttribute('aria-selected', 'true');
    expect(ipc.diffNodes).toHaveBeenCalledWith('t1', 'a1b');
    await waitFor(() => expect(within(view).getAllByTestId('file-diff')).toHaveLength(2));
    const [parser, lexer] = within(view).getAllByTestId('file-diff');
    expect(parser).toHaveAttribute('data-path', 'src/parser.rs');
    expect(parser).toHaveTextContent('modified');
    expect(parser).toHaveTextContent('+2 −1');
    expect(within(parser).getByText('let tokens = lex();').closest('tr')).toHaveClass('add');
    expect(within(parser).getByText('todo!()', { exact: false }).closest('tr')).toHaveClass('del');
    expect(lexer).toHaveAttribute('data-path', 'src/lexer.rs');
    expect(lexer).toHaveTextContent('renamed');
    expect(lexer).toHaveTextContent('from src/lex.rs');
    // The turns are hidden while the files show, and come back with the keyboard.
    expect(within(view).queryByTestId('compare-row')).not.toBeVisible();
    await user.keyboard('{ArrowLeft}');
    expect(within(view).getByRole('tab', { name: 'Turns' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(within(view).getByRole('tab', { name: 'Turns' })).toHaveFocus();
    await user.keyboard('{ArrowRight}');
    expect(tab).toHaveAttribute('aria-selected', 'true');
    expect(tab).toHaveFocus();
    // Read once.
    expect(ipc.diffNodes).toHaveBeenCalledTimes(1);
  });

  it('says when no files differ, and shows why they cannot be compared', async () => {
    vi.mocked(ipc.diffNodes).mockResolvedValueOnce({
      from_node: 't1',
      to_node: 'a1b',
      from_snapshot: 'x',
      to_snapshot: 'x',
      files: [],
    });
    const user = await openTree();
    let view = await compare(user);
    await user.click(within(view).getByTestId('compare-files'));
    expect(await within(view).findByText(/No file differences/)).toBeInTheDocument();
    expect(within(view).queryByTestId('file-diff')).not.toBeInTheDocument();
    await user.click(within(view).getByTestId('compare-close'));

    vi.mocked(ipc.diffNodes).mockRejectedValueOnce(
      new ipc.ArborError('no_code_state', 'Node a1b was stored before code states.'),
    );
    view = await compare(user);
    await user.click(within(view).getByTestId('compare-files'));
    const alert = await within(view).findByRole('alert');
    expect(alert).toHaveTextContent('Node a1b was stored before code states.');
    expect(alert).toHaveTextContent('stored before Arbor recorded files');
  });
});
