import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { AgentMessage, AssistantContent, ModelGroup, SessionView } from '../../ipc/wire';
import { ChatStore } from '../../state/chat.svelte';
import { emit, EMPTY_VIEW, STATE } from '../../test-ipc';
import { settingsDialog } from '../../state/settings.svelte';
import ChatView from './ChatView.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

const USAGE = {
  input: 1,
  output: 1,
  cache_read: 0,
  cache_write: 0,
  cost: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
};

/** A stored chat: a user message with two versions, and its answer. */
const VIEW: SessionView = {
  session_id: 's1',
  title: 'Greetings',
  earlier: 0,
  state: STATE,
  entries: [
    {
      node_id: 'u2',
      parent_id: null,
      kind: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'hello again' }] },
      aborted: false,
      label: null,
      sibling_ids: ['u1', 'u2'],
      summary: null,
      tokens_before: null,
    },
    {
      node_id: 'a2',
      parent_id: 'u2',
      kind: 'assistant',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'Hi **there**' }],
        api: 'openai-completions',
        provider: 'mock',
        model: 'm1',
        usage: USAGE,
        stop_reason: 'stop',
      },
      aborted: false,
      label: null,
      sibling_ids: ['a2'],
      summary: null,
      tokens_before: null,
    },
  ],
};

let groups: ModelGroup[];

async function setup(
  view: SessionView = VIEW,
  props: { ontoggletree?: () => void; onnewsession?: () => void } = {},
) {
  vi.mocked(ipc.startSession).mockImplementationOnce(async (_id, onevent) => {
    // Keep the fake's Channel wiring: emit() must reach this chat.
    const { fakeIpc } = await import('../../test-ipc');
    await fakeIpc(ipc).startSession(null, onevent);
    return view;
  });
  // After a run the chat reloads the stored branch: here, the same one.
  vi.mocked(ipc.sessionView).mockResolvedValue(view);
  groups = await ipc.listModels();
  const chat = new ChatStore((flush) => setTimeout(flush, 0));
  await chat.open(null);
  const onerror = vi.fn();
  const user = userEvent.setup();
  render(ChatView, { chat, groups, onerror, ...props });
  return { chat, user, onerror };
}

beforeEach(() => {
  // Back to the fake's answers (a test's own answers do not leak into the next).
  vi.resetAllMocks();
});

describe('the chat', () => {
  it('shows the stored branch with its header', async () => {
    await setup();
    const messages = screen.getAllByTestId('message');
    expect(messages.map((m) => m.dataset.role)).toEqual(['user', 'assistant']);
    expect(messages[0]).toHaveAttribute('data-node-id', 'u2');
    expect(within(messages[1]).getByText('there').tagName).toBe('STRONG');
    expect(screen.getByTestId('branch-position')).toHaveTextContent('2/2');
    expect(screen.getByTestId('model-picker')).toHaveTextContent('mock/m1');
    expect(screen.getByTestId('context-meter')).toHaveTextContent('1.2k / 32k');
    expect(screen.getByTestId('session-cost')).toHaveTextContent('$0.012');
    expect(screen.getByTestId('thinking-picker')).toBeDisabled();
  });

  it('shows the empty state of a new chat', async () => {
    await setup(EMPTY_VIEW);
    expect(screen.getByTestId('chat-empty')).toHaveTextContent('What should we work on?');
  });

  it('sends with Enter, keeps Shift+Enter as a new line', async () => {
    const { user } = await setup(EMPTY_VIEW);
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'line one{Shift>}{Enter}{/Shift}line two{Enter}');
    expect(ipc.prompt).toHaveBeenCalledWith('line one\nline two', [], []);
    expect(composer).toHaveValue('');
    expect(screen.getByTestId('stop')).toBeInTheDocument();
  });

  it('while running: Enter steers, Alt+Enter queues a follow-up, Esc stops', async () => {
    const { user } = await setup(EMPTY_VIEW);
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'focus on tests{Enter}');
    expect(ipc.steer).toHaveBeenCalledWith('focus on tests');
    await user.type(composer, 'then docs{Alt>}{Enter}{/Alt}');
    expect(ipc.followUp).toHaveBeenCalledWith('then docs');
    await user.keyboard('{Escape}');
    expect(ipc.abort).toHaveBeenCalled();
    expect(ipc.prompt).not.toHaveBeenCalled();
  });

  it('streams an answer with a running tool card and live output', async () => {
    await setup(EMPTY_VIEW);
    emit(
      { type: 'agent_start' },
      {
        type: 'message_start',
        message: {
          role: 'assistant',
          content: [],
          api: 'openai-completions',
          provider: 'mock',
          model: 'm1',
          usage: USAGE,
          stop_reason: 'stop',
        },
      },
      { type: 'message_update', delta: { type: 'text_start', content_index: 0 } },
      {
        type: 'message_update',
        delta: { type: 'text_delta', content_index: 0, delta: 'Running ' },
      },
      { type: 'message_update', delta: { type: 'text_delta', content_index: 0, delta: 'it' } },
      {
        type: 'message_update',
        delta: { type: 'tool_call_start', content_index: 1, id: 'c1', name: 'bash' },
      },
      {
        type: 'message_update',
        delta: {
          type: 'tool_call_delta',
          content_index: 1,
          delta: '{}',
          arguments: { command: 'make test' },
        },
      },
    );
    const answer = await screen.findByTestId('message');
    expect(answer).toHaveAttribute('data-status', 'streaming');
    await waitFor(() => expect(answer).toHaveTextContent('Running it'));
    const card = screen.getByTestId('tool-card');
    expect(card).toHaveAttribute('data-tool-name', 'bash');
    expect(card).toHaveAttribute('data-status', 'running');
    expect(within(card).getByTestId('tool-args')).toHaveTextContent('command: make test');
    emit(
      { type: 'tool_execution_start', tool_call_id: 'c1', tool_name: 'bash', args: {} },
      { type: 'tool_execution_update', tool_call_id: 'c1', tool_name: 'bash', output: 'ok 1\n' },
    );
    await waitFor(() => expect(within(card).getByTestId('tool-output')).toHaveTextContent('ok 1'));
    emit({
      type: 'tool_execution_end',
      tool_call_id: 'c1',
      tool_name: 'bash',
      result: { content: [{ type: 'text', text: 'FAILED: 1 test' }] },
      is_error: true,
    });
    await waitFor(() => expect(card).toHaveAttribute('data-status', 'error'));
    expect(within(card).getByTestId('tool-output')).toHaveTextContent('FAILED: 1 test');
  });

  it('edits a message into a new branch and switches branches in place', async () => {
    const { user } = await setup();
    const first = screen.getAllByTestId('message')[0];
    await user.click(within(first).getByTestId('edit-message'));
    const editor = within(first).getByRole('textbox');
    await user.clear(editor);
    await user.type(editor, 'hello once more');
    await user.click(within(first).getByTestId('edit-submit'));
    expect(ipc.editMessage).toHaveBeenCalledWith('u2', 'hello once more');
    // The edited message and what followed it make way for the new branch.
    expect(screen.queryAllByTestId('message')).toHaveLength(0);
  });

  it('moves to another version with the switcher', async () => {
    const { user } = await setup();
    await user.click(screen.getByTestId('branch-prev'));
    expect(ipc.openBranch).toHaveBeenCalledWith('u1');
  });

  it('regenerates an answer as a sibling', async () => {
    const { user } = await setup();
    await user.click(screen.getByTestId('regenerate'));
    expect(ipc.regenerate).toHaveBeenCalledWith('a2');
  });

  it('shows a regenerated answer as 2/2 at once, reading only the header’s figures after', async () => {
    const { user } = await setup();
    await user.click(screen.getByTestId('regenerate'));
    expect(ipc.regenerate).toHaveBeenCalledWith('a2');
    vi.mocked(ipc.sessionState).mockResolvedValueOnce({ ...STATE, cost: 0.5 });
    const again: AgentMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello again' }],
      api: 'openai-completions',
      provider: 'mock',
      model: 'm1',
      usage: USAGE,
      stop_reason: 'stop',
    };
    emit(
      { type: 'agent_start' },
      { type: 'message_start', message: again },
      { type: 'message_end', message: again },
      {
        type: 'node_appended',
        node_id: 'a3',
        parent_id: 'u2',
        session_id: 's1',
        sibling_ids: ['a2', 'a3'],
        node: {
          id: 'a3',
          parent_id: 'u2',
          kind: 'assistant',
          first_line: 'Hello again',
          label: null,
          aborted: false,
          tokens: 40,
          cost: 0.001,
          files: [],
        },
      },
    );
    await waitFor(() =>
      expect(screen.getAllByTestId('message')[1]).toHaveAttribute('data-node-id', 'a3'),
    );
    const answer = screen.getAllByTestId('message')[1];
    expect(within(answer).getByTestId('branch-position')).toHaveTextContent('2/2');
    emit({ type: 'agent_end', messages: [], status: 'completed' });
    await waitFor(() => expect(screen.getByTestId('session-cost')).toHaveTextContent('$0.50'));
    expect(ipc.sessionState).toHaveBeenCalledTimes(1);
    expect(ipc.sessionView).not.toHaveBeenCalled();
    expect(screen.getByTestId('send')).toBeInTheDocument();
    expect(
      within(screen.getAllByTestId('message')[1]).getByTestId('branch-position'),
    ).toHaveTextContent('2/2');
  });

  it('picks a model from the grouped list, marking providers without a key', async () => {
    const { user } = await setup();
    await user.click(screen.getByTestId('model-picker'));
    const options = screen.getAllByTestId('model-option');
    expect(options.map((o) => o.dataset.value)).toEqual(['mock/m1', 'openai/gpt-5']);
    // Only OpenAI lacks a key; its "Set key" opens the settings on its row.
    expect(screen.getAllByTestId('model-set-key')).toHaveLength(1);
    expect(screen.getByTestId('model-set-key')).toHaveAccessibleName('Set a key for OpenAI');
    await user.click(options[1]);
    expect(ipc.setModel).toHaveBeenCalledWith('openai', 'gpt-5');
    await waitFor(() => expect(screen.getByTestId('model-picker')).toHaveTextContent('gpt-5'));
  });

  it('sends the user from a keyless provider to its settings row', async () => {
    const { user } = await setup();
    await user.click(screen.getByTestId('model-picker'));
    await user.click(screen.getByTestId('model-set-key'));
    expect(settingsDialog.open).toBe(true);
    expect(settingsDialog.focus).toBe('openai');
    expect(screen.queryByTestId('model-option')).not.toBeInTheDocument();
    settingsDialog.close();
  });

  it('shows a failed run with its class, what to do, and a retry', async () => {
    const { user } = await setup();
    emit(
      { type: 'agent_start' },
      {
        type: 'agent_end',
        messages: [],
        status: 'failed',
        error: { kind: 'rate_limited', message: 'Slow down', retry_after_ms: 1000 },
      },
    );
    const error = await screen.findByTestId('run-error');
    expect(error).toHaveAttribute('data-kind', 'rate_limited');
    expect(error).toHaveTextContent('Rate limited');
    expect(error).toHaveTextContent('Slow down');
    await user.click(within(error).getByTestId('run-retry'));
    expect(ipc.regenerate).toHaveBeenCalledWith('a2');
  });

  it('shows a retry countdown and a compaction divider', async () => {
    await setup();
    emit(
      { type: 'agent_start' },
      {
        type: 'retry_scheduled',
        attempt: 2,
        delay_ms: 3000,
        error: { kind: 'overloaded', message: 'Overloaded' },
      },
    );
    expect(await screen.findByTestId('retry-notice')).toHaveTextContent(
      'Overloaded — retrying (attempt 2) in 3 s',
    );
    emit(
      { type: 'compaction_start', reason: 'threshold' },
      {
        type: 'compaction_end',
        reason: 'threshold',
        tokens_before: 30000,
        tokens_after: 2000,
        summary: 'We fixed the parser.',
      },
    );
    expect(await screen.findByTestId('compaction')).toHaveTextContent(
      'context compacted: 30k → 2.0k tokens',
    );
  });

  it('says when files could not be recorded, without stopping the run', async () => {
    const { user } = await setup();
    emit({ type: 'agent_start' }, { type: 'snapshot_error', message: 'disk full' });
    const notice = await screen.findByTestId('snapshot-notice');
    expect(notice).toHaveAttribute('role', 'status');
    expect(notice).toHaveTextContent('Files could not be recorded for this step');
    expect(notice).toHaveTextContent('disk full');
    expect(screen.queryByTestId('run-error')).not.toBeInTheDocument();
    // The run goes on: Stop is still there.
    expect(screen.getByTestId('stop')).toBeInTheDocument();
    emit({ type: 'snapshot_error', message: 'still full' });
    await waitFor(() =>
      expect(screen.getByTestId('snapshot-notice')).toHaveTextContent('for 2 steps'),
    );
    await user.click(within(screen.getByTestId('snapshot-notice')).getByRole('button'));
    expect(screen.queryByTestId('snapshot-notice')).not.toBeInTheDocument();
  });

  it('keeps a turn the store could not save, says so, and sends it again', async () => {
    const { user, onerror } = await setup();
    emit(
      { type: 'agent_start' },
      {
        type: 'message_start',
        message: { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
      },
      {
        type: 'message_end',
        message: { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
      },
      { type: 'store_error', message: 'database or disk is full' },
      { type: 'agent_end', messages: [], status: 'aborted', error: { kind: 'aborted' } },
    );
    const error = await screen.findByTestId('run-error');
    expect(error).toHaveAttribute('data-kind', 'store');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveTextContent('The chat could not be saved');
    expect(error).toHaveTextContent('database or disk is full');
    expect(error).toHaveTextContent('Nothing after this point was saved');
    // The chat read the stored branch again after the run: the unsaved message is still shown.
    await waitFor(() => expect(ipc.sessionView).toHaveBeenCalled());
    const messages = screen.getAllByTestId('message');
    expect(messages.map((m) => m.dataset.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]).toHaveTextContent('fix it');
    expect(messages[2]).not.toHaveAttribute('data-node-id');
    expect(
      screen.getByText('Not saved: the messages below are only in this window.'),
    ).toBeInTheDocument();
    expect(within(error).getByTestId('run-retry')).toHaveTextContent('Send again');
    // Still failing to start: the error (and its prompt) stays.
    vi.mocked(ipc.prompt).mockRejectedValueOnce(new ipc.ArborError('store', 'disk full'));
    await user.click(within(error).getByTestId('run-retry'));
    await waitFor(() => expect(onerror).toHaveBeenCalled());
    const still = await screen.findByTestId('run-error');
    expect(still).toHaveAttribute('data-kind', 'store');
    await user.click(within(still).getByTestId('run-retry'));
    expect(ipc.prompt).toHaveBeenCalledTimes(2);
    expect(ipc.prompt).toHaveBeenLastCalledWith('fix it', [], []);
    expect(ipc.regenerate).not.toHaveBeenCalled();
    // The new run starts from what is stored: the unsaved copy leaves, the new one streams.
    emit(
      { type: 'agent_start' },
      {
        type: 'message_start',
        message: { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
      },
    );
    await waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(3));
    expect(
      screen.queryByText('Not saved: the messages below are only in this window.'),
    ).not.toBeInTheDocument();
    expect(screen.queryByTestId('run-error')).not.toBeInTheDocument();
  });

  it('shows each reused tool call id with its own output', async () => {
    const call = (path: string): AssistantContent => ({
      type: 'tool_call',
      id: 'call_1',
      name: 'read',
      arguments: { path },
    });
    const result = (text: string): AgentMessage => ({
      role: 'tool_result',
      tool_call_id: 'call_1',
      tool_name: 'read',
      content: [{ type: 'text', text }],
      is_error: false,
    });
    const base = { aborted: false, label: null, summary: null, tokens_before: null };
    const assistant = (content: AssistantContent[]): AgentMessage => ({
      role: 'assistant',
      content,
      api: 'openai-completions',
      provider: 'mock',
      model: 'm1',
      usage: USAGE,
      stop_reason: 'tool_use',
    });
    await setup({
      ...VIEW,
      entries: [
        { ...VIEW.entries[0], node_id: 'u1', sibling_ids: ['u1'] },
        {
          ...base,
          node_id: 'a1',
          parent_id: 'u1',
          kind: 'assistant',
          sibling_ids: ['a1'],
          message: assistant([call('a.txt')]),
        },
        {
          ...base,
          node_id: 'r1',
          parent_id: 'a1',
          kind: 'tool_result',
          sibling_ids: ['r1'],
          message: result('alpha'),
        },
        {
          ...base,
          node_id: 'a2',
          parent_id: 'r1',
          kind: 'assistant',
          sibling_ids: ['a2'],
          message: assistant([call('b.txt')]),
        },
        {
          ...base,
          node_id: 'r2',
          parent_id: 'a2',
          kind: 'tool_result',
          sibling_ids: ['r2'],
          message: result('beta'),
        },
      ],
    });
    const cards = screen.getAllByTestId('tool-card');
    expect(cards).toHaveLength(2);
    expect(within(cards[0]).getByTestId('tool-args')).toHaveTextContent('path: a.txt');
    expect(within(cards[0]).getByTestId('tool-output')).toHaveTextContent('alpha');
    expect(within(cards[1]).getByTestId('tool-args')).toHaveTextContent('path: b.txt');
    expect(within(cards[1]).getByTestId('tool-output')).toHaveTextContent('beta');
  });

  it('reads the chat again when another window wrote to it, after a run', async () => {
    const { user } = await setup();
    emit({ type: 'agent_start' }, { type: 'session_written_elsewhere', session_id: 's1' });
    const notice = await screen.findByTestId('external-write-notice');
    expect(notice).toHaveAttribute('role', 'status');
    expect(notice).toHaveTextContent(
      'This chat was changed in another window or terminal; its turns appear as a branch in the tree.',
    );
    // Not while the run streams into the chat.
    expect(ipc.sessionView).not.toHaveBeenCalled();
    emit({ type: 'agent_end', messages: [], status: 'completed' });
    await waitFor(() => expect(ipc.sessionView).toHaveBeenCalledTimes(1));
    // With no run, at once.
    emit({ type: 'session_written_elsewhere', session_id: 's1' });
    await waitFor(() => expect(ipc.sessionView).toHaveBeenCalledTimes(2));
    await user.click(within(screen.getByTestId('external-write-notice')).getByRole('button'));
    expect(screen.queryByTestId('external-write-notice')).not.toBeInTheDocument();
  });

  it('shows stream notices, counted, and dismisses them', async () => {
    const { user } = await setup();
    emit(
      { type: 'agent_start' },
      { type: 'stream_notice', message: 'Skipped 2 events that were not valid JSON', skipped: 2 },
    );
    const notice = await screen.findByTestId('stream-notice');
    expect(notice).toHaveAttribute('role', 'status');
    expect(notice).toHaveTextContent('Skipped 2 events that were not valid JSON');
    emit({ type: 'stream_notice', message: 'Skipped 1 event that was not valid JSON', skipped: 1 });
    await waitFor(() => expect(notice).toHaveTextContent('2 times, 3 events skipped in all'));
    expect(screen.queryByTestId('run-error')).not.toBeInTheDocument();
    expect(screen.getByTestId('stop')).toBeInTheDocument();
    await user.click(within(notice).getByRole('button', { name: /Dismiss/ }));
    expect(screen.queryByTestId('stream-notice')).not.toBeInTheDocument();
  });

  it('refuses an image for a model that takes none, and says why', async () => {
    const { user } = await setup(EMPTY_VIEW);
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    await user.click(screen.getByTestId('composer'));
    await user.paste({ files: [file] } as unknown as DataTransfer);
    expect(await screen.findByTestId('composer-notice')).toHaveTextContent(
      'm1 does not take images',
    );
  });
});

/** A user message as the stream shows it. */
function userMessage(text: string): AgentMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function queued(): HTMLElement[] {
  return screen.queryAllByTestId('queued-message');
}

describe('messages queued while the agent works', () => {
  async function running() {
    const setUp = await setup(EMPTY_VIEW);
    emit({ type: 'agent_start' }, { type: 'message_start', message: userMessage('fix it') });
    await screen.findByTestId('stop');
    return setUp;
  }

  it('show above the composer until the stream delivers them', async () => {
    const { user } = await running();
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'use vitest{Enter}');
    await user.type(composer, 'then the docs{Alt>}{Enter}{/Alt}');
    expect(ipc.steer).toHaveBeenCalledWith('use vitest');
    expect(ipc.followUp).toHaveBeenCalledWith('then the docs');
    expect(queued().map((q) => [q.dataset.kind, q.textContent])).toEqual([
      ['steer', expect.stringContaining('use vitest')],
      ['follow_up', expect.stringContaining('then the docs')],
    ]);
    expect(screen.getByRole('region', { name: 'Queued messages' })).toBeInTheDocument();
    expect(within(queued()[0]).getByTestId('queued-edit')).toHaveAccessibleName(
      'Edit queued steer',
    );
    expect(within(queued()[1]).getByTestId('queued-remove')).toHaveAccessibleName(
      'Remove queued follow-up',
    );
    expect(within(queued()[1]).getByTestId('queued-remove')).toHaveAccessibleDescription(
      'then the docs',
    );
    // The prompt of the run (already there) delivers nothing; the steer's own message does.
    emit({ type: 'message_start', message: userMessage('use vitest') });
    await waitFor(() => expect(queued()).toHaveLength(1));
    expect(queued()[0]).toHaveAttribute('data-kind', 'follow_up');
    emit({ type: 'message_start', message: userMessage('then the docs') });
    await waitFor(() => expect(queued()).toHaveLength(0));
    expect(screen.queryByRole('region', { name: 'Queued messages' })).not.toBeInTheDocument();
  });

  it('are removed, or just leave when they were already delivered', async () => {
    const { user, onerror } = await running();
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'one{Enter}');
    await user.type(composer, 'two{Alt>}{Enter}{/Alt}');
    await user.click(within(queued()[0]).getByTestId('queued-remove'));
    expect(ipc.unqueue).toHaveBeenCalledWith(false, 'one');
    await waitFor(() => expect(queued()).toHaveLength(1));
    expect(composer).toHaveFocus();
    vi.mocked(ipc.unqueue).mockResolvedValueOnce(false);
    await user.click(within(queued()[0]).getByTestId('queued-remove'));
    expect(ipc.unqueue).toHaveBeenLastCalledWith(true, 'two');
    await waitFor(() => expect(queued()).toHaveLength(0));
    expect(onerror).not.toHaveBeenCalled();
    expect(screen.queryByTestId('composer-notice')).not.toBeInTheDocument();
  });

  it('come back to the composer to edit, unless already delivered', async () => {
    const { user } = await running();
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'use vitest{Enter}');
    await user.type(composer, 'then docs{Alt>}{Enter}{/Alt}');
    await user.click(within(queued()[1]).getByTestId('queued-edit'));
    expect(ipc.unqueue).toHaveBeenCalledWith(true, 'then docs');
    await waitFor(() => expect(composer).toHaveValue('then docs'));
    expect(composer).toHaveFocus();
    expect(queued()).toHaveLength(1);
    vi.mocked(ipc.unqueue).mockResolvedValueOnce(false);
    await user.click(within(queued()[0]).getByTestId('queued-edit'));
    await waitFor(() => expect(queued()).toHaveLength(0));
    expect(composer).toHaveValue('then docs');
    const notice = screen.getByTestId('composer-notice');
    expect(notice).toHaveTextContent('already delivered');
    expect(notice).toHaveAttribute('role', 'status');
  });

  it('come back to the composer when the run is stopped, after what it holds', async () => {
    const { user } = await running();
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'use vitest{Enter}');
    await user.type(composer, 'then docs{Alt>}{Enter}{/Alt}');
    await user.type(composer, 'a draft');
    vi.mocked(ipc.abort).mockResolvedValueOnce(['use vitest', 'then docs']);
    await user.click(screen.getByTestId('stop'));
    expect(ipc.abort).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(composer).toHaveValue('a draft\n\nuse vitest\n\nthen docs'));
    expect(queued()).toHaveLength(0);
  });

  it('stop once with Esc, and come back to the composer', async () => {
    const { user } = await running();
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'use vitest{Enter}');
    vi.mocked(ipc.abort).mockResolvedValueOnce(['use vitest']);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(composer).toHaveValue('use vitest'));
    expect(ipc.abort).toHaveBeenCalledTimes(1);
    expect(queued()).toHaveLength(0);
  });

  it('go back to the composer when Rust refuses them', async () => {
    const { user, onerror } = await running();
    vi.mocked(ipc.steer).mockRejectedValueOnce(new ipc.ArborError('no_session', 'No run'));
    const composer = screen.getByTestId('composer');
    await user.type(composer, 'use vitest{Enter}');
    await waitFor(() => expect(onerror).toHaveBeenCalled());
    expect(queued()).toHaveLength(0);
    expect(composer).toHaveValue('use vitest');
  });
});

describe('built-in commands', () => {
  it('/compact summarises with its focus, stoppable, then shows the chat', async () => {
    const { user } = await setup();
    let finish: (view: SessionView) => void = () => undefined;
    let fail: (error: unknown) => void = () => undefined;
    vi.mocked(ipc.compactNow).mockImplementationOnce(
      () => new Promise((resolve, reject) => ((finish = resolve), (fail = reject))),
    );
    const composer = screen.getByTestId('composer');
    await user.type(composer, '/compact keep the parser work{Enter}');
    expect(ipc.compactNow).toHaveBeenCalledWith('keep the parser work');
    expect(ipc.prompt).not.toHaveBeenCalled();
    expect(composer).toHaveValue('');
    expect(await screen.findByTestId('compacting')).toBeInTheDocument();
    expect(screen.getByTestId('send')).toBeDisabled();
    // Stop cancels it.
    await user.click(screen.getByTestId('stop'));
    expect(ipc.abort).toHaveBeenCalledTimes(1);
    fail(new ipc.ArborError('aborted', 'aborted'));
    expect(await screen.findByTestId('composer-notice')).toHaveTextContent('Compaction stopped.');
    expect(screen.queryByTestId('stop')).not.toBeInTheDocument();

    // Without focus, to its end: the chat as it then is.
    vi.mocked(ipc.compactNow).mockImplementationOnce(
      () => new Promise((resolve) => (finish = resolve)),
    );
    await user.type(composer, '/compact{Enter}');
    expect(ipc.compactNow).toHaveBeenLastCalledWith(null);
    finish({
      ...VIEW,
      entries: [
        ...VIEW.entries,
        {
          node_id: 'c1',
          parent_id: 'a2',
          kind: 'compaction',
          message: null,
          aborted: false,
          label: null,
          sibling_ids: ['c1'],
          summary: 'We said hello.',
          tokens_before: 1200,
        },
      ],
    });
    expect(await screen.findByTestId('compaction')).toBeInTheDocument();
    expect(screen.queryByTestId('stop')).not.toBeInTheDocument();
  });

  it('/compact, /model and /thinking wait for the run; /plan does not', async () => {
    const { user } = await setup();
    emit({ type: 'agent_start' });
    await screen.findByTestId('stop');
    const composer = screen.getByTestId('composer');
    await user.type(composer, '/compact{Enter}');
    expect(ipc.compactNow).not.toHaveBeenCalled();
    expect(ipc.steer).not.toHaveBeenCalled();
    expect(screen.getByTestId('composer-notice')).toHaveTextContent(
      '/compact waits until the agent is done',
    );
    expect(composer).toHaveValue('/compact');
    await user.clear(composer);
    await user.type(composer, '/plan{Enter}');
    expect(ipc.setPlanMode).toHaveBeenCalledWith(true);
    expect(ipc.steer).not.toHaveBeenCalled();
  });

  it('/model opens the model picker, /thinking the thinking level', async () => {
    const { user } = await setup();
    const composer = screen.getByTestId('composer');
    await user.type(composer, '/model{Enter}');
    expect(screen.getAllByTestId('model-option').length).toBeGreaterThan(0);
    expect(screen.getByTestId('model-picker')).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{Escape}');
    await user.click(composer);
    await user.type(composer, '/thinking{Enter}');
    // m1 does not reason: the picker is off, and the notice says why.
    expect(screen.getByTestId('composer-notice')).toHaveTextContent('m1 does not reason');
  });

  it('/thinking focuses the thinking level of a model that reasons', async () => {
    const { user } = await setup({ ...VIEW, state: { ...STATE, reasoning: true } });
    await user.type(screen.getByTestId('composer'), '/th{Enter}');
    expect(screen.getByTestId('thinking-picker')).toHaveFocus();
  });

  it('/export saves the chat and says where', async () => {
    const { user } = await setup();
    const composer = screen.getByTestId('composer');
    await user.type(composer, '/export{Enter}');
    expect(ipc.exportSession).toHaveBeenCalledWith('markdown');
    expect(await screen.findByTestId('composer-notice')).toHaveTextContent(
      'Exported to /home/me/arbor-session.md',
    );
    await user.type(composer, '/export html{Enter}');
    expect(ipc.exportSession).toHaveBeenLastCalledWith('html');
    // Cancelled in the save dialog: nothing to say.
    vi.mocked(ipc.exportSession).mockResolvedValueOnce(null);
    await user.type(composer, '/export{Enter}');
    await waitFor(() => expect(screen.queryByTestId('composer-notice')).not.toBeInTheDocument());
  });

  it('/tree toggles the tree panel, /new starts a new chat', async () => {
    const ontoggletree = vi.fn();
    const onnewsession = vi.fn();
    const { user } = await setup(VIEW, { ontoggletree, onnewsession });
    const composer = screen.getByTestId('composer');
    await user.type(composer, '/tree{Enter}');
    expect(ontoggletree).toHaveBeenCalledTimes(1);
    // Chosen from the menu with the mouse.
    await user.type(composer, '/n');
    await user.click(await screen.findByRole('option', { name: /\/new/ }));
    expect(onnewsession).toHaveBeenCalledTimes(1);
    expect(ipc.prompt).not.toHaveBeenCalled();
  });

  it('/new without a parent for it sends the window’s Ctrl+N', async () => {
    const { user } = await setup();
    const shortcut = vi.fn();
    window.addEventListener('keydown', shortcut);
    await user.type(screen.getByTestId('composer'), '/new{Enter}');
    window.removeEventListener('keydown', shortcut);
    const sent = shortcut.mock.calls
      .map(([event]) => event as KeyboardEvent)
      .filter((event) => event.key === 'n' && event.ctrlKey);
    expect(sent).toHaveLength(1);
  });
});
