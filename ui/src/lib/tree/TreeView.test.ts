import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import { REPO } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
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
