// A long chat mounts only its last messages; earlier ones come with the button, or when the
// user scrolls near the top (jsdom lays nothing out: its scrollTop is always 0, the top).
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { BranchEntry, SessionView } from '../../ipc/wire';
import { ChatStore } from '../../state/chat.svelte';
import { STATE } from '../../test-ipc';
import ChatView from './ChatView.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

function entry(index: number): BranchEntry {
  return {
    node_id: `n${index}`,
    parent_id: index === 0 ? null : `n${index - 1}`,
    kind: 'user',
    message: { role: 'user', content: [{ type: 'text', text: `Question ${index}` }] },
    aborted: false,
    label: null,
    sibling_ids: [`n${index}`],
    summary: null,
    tokens_before: null,
  };
}

/** Entries `from..to` of a branch of user messages. */
function entries(from: number, to: number): BranchEntry[] {
  return Array.from({ length: to - from }, (_, offset) => entry(from + offset));
}

function shownQuestions(): string[] {
  return screen.getAllByTestId('message').map((message) => message.textContent?.trim() ?? '');
}

async function setup(view: SessionView) {
  vi.mocked(ipc.startSession).mockImplementationOnce(async (_id, onevent) => {
    const { fakeIpc } = await import('../../test-ipc');
    await fakeIpc(ipc).startSession(null, onevent);
    return view;
  });
  const groups = await ipc.listModels();
  const chat = new ChatStore((flush) => setTimeout(flush, 0));
  await chat.open(null);
  render(ChatView, { chat, groups, onerror: vi.fn() });
  return { chat, user: userEvent.setup() };
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe('a long chat', () => {
  const held: SessionView = {
    session_id: 's1',
    title: null,
    earlier: 0,
    state: STATE,
    entries: entries(0, 45),
  };

  it('mounts its last 20 messages, and the button shows the 20 before them', async () => {
    const { user } = await setup(held);
    const first = shownQuestions();
    expect(first).toHaveLength(20);
    expect(first[0]).toContain('Question 25');
    await user.click(screen.getByRole('button', { name: 'Show 20 earlier messages' }));
    await waitFor(() => expect(shownQuestions()).toHaveLength(40));
    await user.click(screen.getByRole('button', { name: 'Show 5 earlier messages' }));
    await waitFor(() => expect(shownQuestions()[0]).toContain('Question 0'));
    expect(screen.queryByRole('button', { name: /earlier/ })).not.toBeInTheDocument();
  });

  it('reveals earlier messages when the list is scrolled near its top, not before', async () => {
    await setup(held);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(shownQuestions()).toHaveLength(20);
    const scroller = screen.getByRole('log').parentElement;
    if (!scroller) throw new Error('no scroller');
    await fireEvent.scroll(scroller);
    await waitFor(() => expect(shownQuestions()).toHaveLength(40));
  });

  it('reads earlier entries from the store once it shows all it holds', async () => {
    const tail: SessionView = { ...held, entries: entries(100, 110), earlier: 100 };
    vi.mocked(ipc.earlierEntries).mockResolvedValueOnce({ entries: entries(60, 100), earlier: 60 });
    await setup(tail);
    expect(shownQuestions()).toHaveLength(10);
    const scroller = screen.getByRole('log').parentElement;
    if (!scroller) throw new Error('no scroller');
    await fireEvent.scroll(scroller);
    await waitFor(() => expect(ipc.earlierEntries).toHaveBeenCalledWith('n100', 40));
    await waitFor(() => expect(shownQuestions()).toHaveLength(50));
    expect(screen.getByTestId('load-earlier')).toHaveTextContent('60 more in this branch');
  });
});
