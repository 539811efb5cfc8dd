import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import { REPO, sessionItem } from '../../test-ipc';
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

function setup(currentId: string | null = 's2') {
  vi.mocked(ipc.listSessions).mockResolvedValue(SESSIONS);
  const props = {
    project: REPO,
    currentId,
    version: 0,
    onopen: vi.fn(),
    onnew: vi.fn(),
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
