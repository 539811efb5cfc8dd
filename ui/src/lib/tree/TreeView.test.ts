import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import type { SessionTreeView, TreeNodeView } from '../../ipc/wire';
import { RELOAD_DELAY } from '../../state/tree-panel.svelte';
import { appendedEvent, emit, landedAt, reply, REPO, TREE } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
  // Tests below answer with other trees; each test starts from the fake's own.
  vi.mocked(ipc.sessionTree).mockImplementation(async () => TREE);
  vi.mocked(ipc.visitNode).mockImplementation(async (id) => landedAt(TREE, id));
  vi.mocked(ipc.sessionTreeSince).mockImplementation(async () => ({
    session_id: null,
    leaf_id: null,
    from: 0,
    nodes: [],
  }));
});

function node(id: string): HTMLElement {
  const found = screen.getAllByTestId('tree-node').find((el) => el.dataset.nodeId === id);
  if (!found) throw new Error(`no tree node ${id}`);
  return found;
}

async function openTree(tree: SessionTreeView = TREE, turns = 4) {
  const user = userEvent.setup();
  vi.mocked(ipc.sessionTree).mockImplementation(async () => tree);
  vi.mocked(ipc.visitNode).mockImplementation(async (id) => landedAt(tree, id));
  vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
  render(App);
  await screen.findByTestId('composer');
  await user.click(screen.getByTestId('tree-toggle'));
  await screen.findByTestId('tree-view');
  await waitFor(() => expect(screen.getAllByTestId('tree-node')).toHaveLength(turns));
  return user;
}

function menu() {
  return within(screen.getByTestId('node-menu'));
}

function turn(id: string, parent: string | null, kind: TreeNodeView['kind']): TreeNodeView {
  return { ...TREE.nodes[0], id, parent_id: parent, kind, first_line: `${kind} ${id}` };
}

describe('the tree panel', () => {
  it('draws turns with the current path, leaves, labels and folded tool results', async () => {
    await openTree();
    expect(screen.getByTestId('tree-toggle')).toHaveAttribute('aria-pressed', 'true');
    expect(node('u1')).toMatchObject({ dataset: expect.objectContaining({ onPath: 'true' }) });
    expect(node('a1b').dataset).toMatchObject({ onPath: 'true', leaf: 'true', kind: 'assistant' });
    expect(node('a1').dataset).toMatchObject({ onPath: 'false', leaf: 'true' });
    expect(node('u2').dataset).toMatchObject({ onPath: 'false', leaf: 'true', kind: 'user' });
    expect(node('a1')).toHaveAccessibleName(/label first try/);
    expect(node('a1')).toHaveAccessibleName(/1 tool results/);
    expect(node('a1b')).toHaveAccessibleName(/current/);
  });

  it('reads only the nodes stored since its last read, once it knows the tree', async () => {
    const added: TreeNodeView = {
      id: 'u3',
      parent_id: 'a1b',
      kind: 'user',
      first_line: 'and one more thing',
      label: null,
      aborted: false,
      tokens: 0,
      cost: 0,
      files: [],
    };
    vi.mocked(ipc.sessionTreeSince).mockImplementation(async (since) => ({
      session_id: TREE.session_id,
      leaf_id: 'u3',
      from: since,
      nodes: since === TREE.nodes.length ? [added] : [],
    }));
    const user = await openTree();
    // A visit changes the chat: the panel reads what is new, not the whole tree again.
    await user.click(node('a1'));
    await waitFor(() => expect(ipc.sessionTreeSince).toHaveBeenCalledWith(TREE.nodes.length));
    await waitFor(() => expect(node('u3').dataset.onPath).toBe('true'));
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
  });

  it('draws the turns a run stores from the stream, without reading the tree again', async () => {
    vi.mocked(ipc.startSession).mockImplementationOnce(async (_id, onevent) => {
      // Keep the fake's Channel wiring: emit() must reach this chat.
      const { fakeIpc } = await import('../../test-ipc');
      await fakeIpc(ipc).startSession(null, onevent);
      return landedAt(TREE, 'a1b').view;
    });
    await openTree();
    const ask = { role: 'user' as const, content: [{ type: 'text' as const, text: 'more' }] };
    const u3 = { ...turn('u3', 'a1b', 'user'), first_line: 'more' };
    const a3 = turn('a3', 'u3', 'assistant');
    const answer = reply(a3.first_line);
    const appended = (node: TreeNodeView) => appendedEvent(node);
    emit(
      { type: 'agent_start' },
      { type: 'message_start', message: ask },
      { type: 'message_end', message: ask },
      appended(u3),
      { type: 'message_start', message: answer },
      { type: 'message_end', message: answer },
      appended(a3),
      { type: 'agent_end', messages: [], status: 'completed' },
    );
    await waitFor(() => expect(screen.getAllByTestId('tree-node')).toHaveLength(6));
    expect(node('a3').dataset).toMatchObject({ onPath: 'true', leaf: 'true' });
    expect(node('a3')).toHaveAccessibleName(/current/);
    expect(node('a1b').dataset.leaf).toBe('false');
    await waitFor(() => expect(ipc.sessionState).toHaveBeenCalled());
    // Past the moment the panel would have read the tree again.
    await new Promise((done) => setTimeout(done, RELOAD_DELAY * 3));
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
    expect(ipc.sessionTreeSince).not.toHaveBeenCalled();
    expect(ipc.sessionView).not.toHaveBeenCalled();
  });

  it('reads the whole tree again when another window or terminal wrote to the session', async () => {
    // The delta would say nothing is new: only a whole read shows the other writer's turn.
    vi.mocked(ipc.sessionTreeSince).mockImplementation(async (since) => ({
      session_id: TREE.session_id,
      leaf_id: TREE.leaf_id,
      from: since,
      nodes: [],
    }));
    await openTree();
    const written = { ...TREE, nodes: [...TREE.nodes, turn('u9', 'a1b', 'user')] };
    vi.mocked(ipc.sessionTree).mockImplementation(async () => written);
    emit({
      type: 'session_written_elsewhere',
      session_id: TREE.session_id ?? '',
      other_leaf_id: 'u9',
    });
    await waitFor(() => expect(screen.getAllByTestId('tree-node')).toHaveLength(5));
    expect(node('u9').dataset.onPath).toBe('false');
    expect(screen.getByTestId('external-write-notice')).toHaveTextContent(
      'changed in another window or terminal',
    );
    // The chat read its branch again too.
    expect(ipc.sessionView).toHaveBeenCalled();
  });

  it('goes to a turn on click; a user message comes back into the composer', async () => {
    const user = await openTree();
    await user.click(node('a1'));
    expect(ipc.visitNode).toHaveBeenCalledWith('a1');
    await user.click(node('u2'));
    expect(ipc.visitNode).toHaveBeenCalledWith('u2');
    await waitFor(() => expect(screen.getByTestId('composer')).toHaveValue('text of u2'));
  });

  it('moves with the arrow keys and goes with Enter; Ctrl+T closes it', async () => {
    const user = await openTree();
    node('a1b').focus();
    await user.keyboard('{ArrowUp}');
    await waitFor(() => expect(node('u1')).toHaveAttribute('aria-selected', 'true'));
    await user.keyboard('{ArrowDown}');
    await waitFor(() => expect(node('a1b')).toHaveAttribute('aria-selected', 'true'));
    await user.keyboard('{ArrowLeft}');
    await waitFor(() => expect(node('a1')).toHaveAttribute('aria-selected', 'true'));
    await user.keyboard('{Enter}');
    expect(ipc.visitNode).toHaveBeenCalledWith('a1');
    await user.keyboard('{Control>}t{/Control}');
    expect(screen.queryByTestId('tree-view')).not.toBeInTheDocument();
  });

  it('shows the cost of a branch and labels or forks the selected turn', async () => {
    const user = await openTree();
    expect(screen.getByTestId('branch-cost')).toHaveTextContent('This branch: $0.00 · 0 tokens');
    node('a1').focus();
    await waitFor(() =>
      expect(screen.getByTestId('branch-cost')).toHaveTextContent(
        'Branch to the selected turn: $0.0040 · 1.2k tokens',
      ),
    );
    const menu = screen.getByTestId('node-menu');
    await user.click(within(menu).getByTestId('node-label'));
    const input = screen.getByTestId('node-label-input');
    await user.clear(input);
    await user.type(input, 'keep this');
    await user.click(screen.getByTestId('node-label-save'));
    expect(ipc.labelNode).toHaveBeenCalledWith('a1', 'keep this');
    await waitFor(() => expect(node('a1')).toHaveAccessibleName(/label keep this/));
    await user.click(within(screen.getByTestId('node-menu')).getByTestId('node-fork'));
    expect(ipc.forkAt).toHaveBeenCalledWith('a1');
  });

  it('selects the node of a search hit that opened the session', async () => {
    const user = await openTree();
    vi.mocked(ipc.searchSessions).mockResolvedValueOnce([
      {
        project_id: 'p1',
        project_root: REPO.path,
        session_id: 's1',
        session_title: 'fix',
        node_id: 't1',
        kind: 'tool_result',
        snippet: 'ok',
        created_at: 0,
      },
    ]);
    await user.type(screen.getByTestId('session-search'), 'ok');
    const hit = await screen.findByTestId('search-hit');
    expect(hit).toHaveAttribute('data-node-id', 't1');
    await user.click(hit);
    // The tool result shows as its turn, which is selected.
    await waitFor(() => expect(node('a1')).toHaveAttribute('aria-selected', 'true'));
  });
});

describe('the node menu', () => {
  it('regenerates an answer, edits a message, copies the text and exports the branch', async () => {
    const user = await openTree();
    node('a1').focus();
    await user.click(await screen.findByTestId('node-regenerate'));
    await waitFor(() => expect(ipc.regenerate).toHaveBeenCalledWith('a1'));
    // Not on the branch shown: the chat went there first.
    expect(ipc.visitNode).toHaveBeenCalledWith('a1');
    expect(menu().queryByTestId('node-edit')).not.toBeInTheDocument();

    await user.click(menu().getByTestId('node-copy'));
    expect(ipc.nodePreview).toHaveBeenCalledWith('a1');
    await waitFor(() => expect(menu().getByTestId('node-copy')).toHaveTextContent('Copied'));
    expect(await navigator.clipboard.readText()).toBe('Reading it.');

    await user.click(menu().getByTestId('node-export'));
    await waitFor(() => expect(menu().getAllByTestId('node-export-format')[0]).toHaveFocus());
    const html = menu()
      .getAllByTestId('node-export-format')
      .find((button) => button.dataset.format === 'html');
    if (!html) throw new Error('no html export');
    await user.click(html);
    // The branch to a turn ends after its tool results.
    expect(ipc.exportBranch).toHaveBeenCalledWith('t1', 'html');
    expect(await screen.findByTestId('node-export-result')).toHaveTextContent(
      'Saved to /home/me/arbor-branch.html',
    );
    expect(menu().getByTestId('node-export')).toHaveFocus();
    // A cancelled save dialog says nothing.
    vi.mocked(ipc.exportBranch).mockResolvedValueOnce(null);
    await user.click(menu().getByTestId('node-export'));
    await user.click(menu().getAllByTestId('node-export-format')[0]);
    expect(ipc.exportBranch).toHaveBeenLastCalledWith('t1', 'markdown');
    await waitFor(() => expect(screen.queryByTestId('node-export-result')).not.toBeInTheDocument());

    node('u2').focus();
    expect(await screen.findByTestId('node-edit')).toBeInTheDocument();
    expect(menu().queryByTestId('node-regenerate')).not.toBeInTheDocument();
    await user.click(menu().getByTestId('node-edit'));
    expect(ipc.visitNode).toHaveBeenCalledWith('u2');
    await waitFor(() => expect(screen.getByTestId('composer')).toHaveValue('text of u2'));
    expect(screen.getByTestId('composer')).toHaveFocus();
  });

  it('reports a failed export through the error banner', async () => {
    const user = await openTree();
    node('a1b').focus();
    vi.mocked(ipc.exportBranch).mockRejectedValueOnce(new ipc.ArborError('io', 'disk full'));
    await user.click(await screen.findByTestId('node-export'));
    await user.click(menu().getAllByTestId('node-export-format')[1]);
    expect(await screen.findByTestId('error-message')).toHaveTextContent('disk full');
  });
});

describe('comparing branches', () => {
  it('picks A, compares it with B side by side, and Esc closes the view', async () => {
    const user = await openTree();
    node('a1').focus();
    await user.click(await screen.findByTestId('compare-select'));
    expect(node('a1')).toHaveAttribute('data-compare', 'a');
    expect(screen.getByTestId('compare-pick')).toHaveTextContent(
      'Pick another turn to compare with',
    );
    node('a1b').focus();
    await waitFor(() =>
      expect(menu().getByTestId('compare-select')).toHaveTextContent('Compare with A'),
    );
    const opener = menu().getByTestId('compare-select');
    await user.click(opener);
    expect(ipc.compareBranches).toHaveBeenCalledWith('t1', 'a1b');
    const compared = await screen.findByTestId('compare-view');
    expect(screen.queryByTestId('compare-pick')).not.toBeInTheDocument();
    expect(within(compared).getByTestId('compare-ancestor')).toHaveTextContent(
      'They part after you “fix the parser” (1 shared node)',
    );
    const [left, right] = within(compared).getAllByTestId('compare-side');
    expect(left).toHaveAttribute('data-side', 'left');
    expect(left).toHaveTextContent('Reading it.');
    expect(left).toHaveTextContent('Whole path: $0.0040 · 1.2k tokens');
    expect(left).toHaveTextContent('+$0.0040 · +1.2k tokens after the split');
    expect(right).toHaveAttribute('data-side', 'right');
    expect(right).toHaveTextContent('Whole path: $0.00 · 0 tokens');
    const rows = within(compared).getAllByTestId('compare-row');
    expect(rows).toHaveLength(1);
    const [a, b] = within(rows[0]).getAllByTestId('compare-cell');
    expect(a).toHaveTextContent('Reading it.');
    expect(a).toHaveTextContent('read(path: "src/parser.rs")');
    expect(a).toHaveTextContent('→ read: ok');
    expect(b).toHaveTextContent('Done.');
    expect(within(compared).getByTestId('compare-files')).toHaveAttribute('aria-selected', 'false');
    expect(within(compared).getByTestId('compare-close')).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('compare-view')).not.toBeInTheDocument();
    expect(menu().getByTestId('compare-select')).toHaveFocus();
  });

  it('drops the pick with Cancel', async () => {
    const user = await openTree();
    node('u2').focus();
    await user.click(await screen.findByTestId('compare-select'));
    await user.click(screen.getByTestId('compare-cancel'));
    expect(screen.queryByTestId('compare-pick')).not.toBeInTheDocument();
    expect(node('u2')).not.toHaveAttribute('data-compare');
    expect(ipc.compareBranches).not.toHaveBeenCalled();
  });
});

describe('summarising the branch left behind', () => {
  it('offers it after going to another branch, and accepting summarises the old leaf', async () => {
    const user = await openTree();
    await user.click(node('a1'));
    const offer = await screen.findByTestId('summarize-offer');
    expect(offer).toHaveAttribute('role', 'status');
    expect(offer).toHaveTextContent('You left a branch. Summarise it into this one?');
    await user.click(within(offer).getByTestId('summarize-accept'));
    expect(ipc.summarizeLeft).toHaveBeenCalledWith('a1b');
    await waitFor(() => expect(screen.queryByTestId('summarize-offer')).not.toBeInTheDocument());
    // The chat shows the branch with its summary.
    expect(await screen.findByText('The branch left behind read the parser.')).toBeInTheDocument();
  });

  it('does not offer it when going up the same branch, and a new visit replaces it', async () => {
    const chain: SessionTreeView = {
      session_id: 's1',
      leaf_id: 'a2',
      nodes: [
        turn('u1', null, 'user'),
        turn('a1', 'u1', 'assistant'),
        turn('u2', 'a1', 'user'),
        turn('a2', 'u2', 'assistant'),
        turn('u3', 'a1', 'user'),
        turn('a3', 'u3', 'assistant'),
      ],
    };
    const user = await openTree(chain, 6);
    await user.click(node('a1'));
    expect(ipc.visitNode).toHaveBeenCalledWith('a1');
    // Give the offer a chance to show.
    await new Promise((done) => setTimeout(done, 100));
    expect(screen.queryByTestId('summarize-offer')).not.toBeInTheDocument();
    // The tree still says a2 is the leaf (the fake does not move it): a3 is another branch.
    await user.click(node('a3'));
    expect(await screen.findByTestId('summarize-offer')).toBeInTheDocument();
    await user.click(screen.getByTestId('summarize-dismiss'));
    expect(screen.queryByTestId('summarize-offer')).not.toBeInTheDocument();
    expect(ipc.summarizeLeft).not.toHaveBeenCalled();
  });
});

describe('the preview and the minimap', () => {
  it('previews a hovered turn as text and hides it when the pointer leaves', async () => {
    const user = await openTree();
    await user.hover(node('a1'));
    const preview = await screen.findByTestId('node-preview');
    expect(preview).toHaveTextContent('Assistant');
    expect(preview).toHaveTextContent('first try');
    expect(preview).toHaveTextContent('Reading it.');
    expect(preview).toHaveTextContent('Tools: read');
    expect(ipc.nodePreview).toHaveBeenCalledWith('a1');
    await user.unhover(node('a1'));
    expect(screen.queryByTestId('node-preview')).not.toBeInTheDocument();
    // Hovered again: from the cache.
    await user.hover(node('a1'));
    await screen.findByTestId('node-preview');
    expect(ipc.nodePreview).toHaveBeenCalledTimes(1);
  });

  it('draws many nodes as one path and moves the view where it is pressed', async () => {
    const fan: SessionTreeView = {
      session_id: 's1',
      leaf_id: 'a0',
      nodes: [turn('u', null, 'user')],
    };
    for (let i = 0; i < 300; i++) fan.nodes.push(turn(`a${i}`, 'u', 'assistant'));
    await openTree(fan, 301);
    const minimap = screen.getByTestId('tree-minimap');
    expect(minimap).toHaveAccessibleName(/Minimap/);
    const paths = minimap.querySelectorAll('path');
    expect(paths).toHaveLength(2);
    expect(paths[0].getAttribute('d')?.match(/M/g)).toHaveLength(301);
    expect(paths[1].getAttribute('d')?.match(/M/g)).toHaveLength(2);
    const stage = screen.getByRole('tree').querySelector('svg > g');
    const before = stage?.getAttribute('transform');
    await fireEvent.pointerDown(minimap, { clientX: 110, clientY: 70, pointerId: 1 });
    expect(stage?.getAttribute('transform')).not.toBe(before);
  });
});
