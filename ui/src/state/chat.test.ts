// The reducer fed with real streams recorded from `arbor --mode json` against the mock
// provider (scripts/record-ui-streams.sh): the desktop reads what the CLI writes.
import { describe, expect, it } from 'vitest';
import type {
  AgentMessage,
  AssistantContent,
  BranchEntry,
  NodeKind,
  SessionEvent,
  SessionState,
  SessionView,
  TreeNodeView,
} from '../ipc/wire';
import {
  applyEvent,
  applyEvents,
  documentsOf,
  fromView,
  needsStoredView,
  prependPage,
  textOf,
  toolKey,
  truncateFrom,
  type AssistantItem,
  type ChatModel,
  type ToolView,
  type UserItem,
} from './chat';
import { STATE as FAKE_STATE } from '../test-ipc';
import failure from './recordings/failure.jsonl?raw';
import markdown from './recordings/markdown.jsonl?raw';
import tools from './recordings/tools.jsonl?raw';

const RECORDINGS: Record<string, string> = { failure, markdown, tools };

function recording(name: string): SessionEvent[] {
  const text = RECORDINGS[name];
  return (
    text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as SessionEvent | { type: 'session' })
      // The CLI's header line describes the session; it is not an event of the stream.
      .filter((event): event is SessionEvent => event.type !== 'session')
  );
}

// The fake ipc's state, with nothing used yet: the reducer's tests start from zero.
const STATE: SessionState = { ...FAKE_STATE, tools: ['read'], context_tokens: 0, cost: 0 };

function empty(): ChatModel {
  return fromView({ session_id: null, title: null, entries: [], earlier: 0, state: STATE });
}

function assistants(model: ChatModel): AssistantItem[] {
  return model.items.filter((item): item is AssistantItem => item.kind === 'assistant');
}

/** The cards of the calls with id `callId`, in the order their messages show them (what each
 * `ToolCard` of the chat reads). */
function cardsOf(model: ChatModel, callId: string): (ToolView | undefined)[] {
  return assistants(model).flatMap((item) =>
    item.content
      .filter((part) => part.type === 'tool_call' && part.id === callId)
      .map(() => model.tools[toolKey(item.key, callId)]),
  );
}

/** The one card of call `callId`. */
function card(model: ChatModel, callId: string): ToolView {
  const cards = cardsOf(model, callId);
  expect(cards).toHaveLength(1);
  expect(cards[0]).toBeDefined();
  return cards[0] as ToolView;
}

describe('a recorded Markdown answer', () => {
  it('streams into one user and one finished assistant message with node ids', () => {
    const model = applyEvents(empty(), recording('markdown'));
    expect(model.items.map((item) => item.kind)).toEqual(['user', 'assistant']);
    const [user, answer] = model.items;
    expect(user.kind === 'user' && user.text).toBe('hello');
    expect(user.nodeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.nodeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.nodeId).not.toBe(user.nodeId);
    const item = answer as AssistantItem;
    expect(item.status).toBe('done');
    expect(item.content.map((part) => part.type)).toEqual(['thinking', 'text']);
    const text = item.content[1];
    expect(text.type === 'text' && text.text).toContain('```rust\nfn main() {}\n```');
    expect(model.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(model.running).toBe(false);
    expect(model.runError).toBeNull();
  });

  it('is streaming, with the text so far, before its end', () => {
    const events = recording('markdown');
    const end = events.findIndex((e) => e.type === 'message_end' && e.message.role === 'assistant');
    const model = applyEvents(empty(), events.slice(0, end - 3));
    const answer = assistants(model)[0];
    expect(answer.status).toBe('streaming');
    expect(answer.nodeId).toBeNull();
    expect(model.running).toBe(true);
    const text = answer.content.find((part) => part.type === 'text');
    expect(text?.type === 'text' && text.text.startsWith('# Hello')).toBe(true);
  });

  it('replaces only the streaming item on a delta', () => {
    const events = recording('markdown');
    const firstDelta = events.findIndex(
      (e) => e.type === 'message_update' && e.delta.type === 'text_delta',
    );
    const before = applyEvents(empty(), events.slice(0, firstDelta));
    const after = applyEvent(before, events[firstDelta]);
    expect(after.items[0]).toBe(before.items[0]);
    expect(after.items[1]).not.toBe(before.items[1]);
  });
});

describe('a recorded tool run', () => {
  const model = applyEvents(empty(), recording('tools'));

  it('keeps every call with its result, status and live output', () => {
    const ids = Object.values(model.tools).map((tool) => tool.id);
    expect(ids.sort()).toEqual(['call_bash', 'call_edit', 'call_read']);
    expect(card(model, 'call_read').status).toBe('done');
    expect(card(model, 'call_read').result?.details).toMatchObject({ path: 'notes.txt' });
    const edit = card(model, 'call_edit').result?.details as { diff: string };
    expect(edit.diff).toContain('-hello world');
    expect(edit.diff).toContain('+goodbye world');
    expect(card(model, 'call_bash').output).toContain('one');
    expect(card(model, 'call_bash').output).toContain('two');
  });

  it('shows the tool results inside the cards, not as messages', () => {
    expect(model.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'assistant',
      'assistant',
      'assistant',
    ]);
    expect(assistants(model).every((item) => item.status === 'done' && item.nodeId)).toBe(true);
  });

  it('marks bash running while its output arrives', () => {
    const events = recording('tools');
    const update = events.findIndex((e) => e.type === 'tool_execution_update');
    const partial = applyEvents(empty(), events.slice(0, update + 1));
    expect(card(partial, 'call_bash').status).toBe('running');
    expect(card(partial, 'call_bash').output.length).toBeGreaterThan(0);
    expect(card(partial, 'call_bash').result).toBeNull();
  });
});

describe('a recorded failure', () => {
  it('ends in an error message and a run error with its class', () => {
    const model = applyEvents(empty(), recording('failure'));
    const answer = assistants(model)[0];
    expect(answer.status).toBe('error');
    expect(answer.errorMessage).toMatch(/authentication/i);
    expect(model.runError?.kind).toBe('authentication');
    expect(model.running).toBe(false);
  });
});

describe('stored views', () => {
  const view: SessionView = {
    session_id: 's1',
    title: 'A chat',
    earlier: 0,
    state: STATE,
    entries: [
      {
        node_id: 'u1',
        parent_id: null,
        kind: 'user',
        message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        aborted: false,
        label: null,
        sibling_ids: ['u0', 'u1'],
        summary: null,
        tokens_before: null,
      },
      {
        node_id: 'a1',
        parent_id: 'u1',
        kind: 'assistant',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Running it' },
            { type: 'tool_call', id: 'c1', name: 'bash', arguments: { command: 'ls' } },
          ],
          api: 'openai-completions',
          provider: 'mock',
          model: 'm1',
          usage: {
            input: 1,
            output: 1,
            cache_read: 0,
            cache_write: 0,
            cost: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
          },
          stop_reason: 'aborted',
        },
        aborted: true,
        label: null,
        sibling_ids: ['a1'],
        summary: null,
        tokens_before: null,
      },
      {
        node_id: 'c',
        parent_id: 'a1',
        kind: 'compaction',
        message: null,
        aborted: false,
        label: null,
        sibling_ids: ['c'],
        summary: 'We talked.',
        tokens_before: 9000,
      },
    ],
  };

  it('become items with siblings; a call with no result is not running', () => {
    const model = fromView(view);
    expect(model.items.map((item) => [item.kind, item.nodeId, item.siblings.length])).toEqual([
      ['user', 'u1', 2],
      ['assistant', 'a1', 1],
      ['compaction', 'c', 1],
    ]);
    expect((model.items[1] as AssistantItem).status).toBe('aborted');
    expect(card(model, 'c1').status).toBe('error');
    expect(model.sessionId).toBe('s1');
  });

  it('keep the keys and objects of messages already shown', () => {
    const first = fromView(view);
    const again = fromView(view, first);
    expect(again.items[0]).toBe(first.items[0]);
    expect(again.items.map((i) => i.key)).toEqual(first.items.map((i) => i.key));
  });

  it('of a long branch carry its tail; earlier pages go before, and stay on refresh', () => {
    const tail: SessionView = { ...view, entries: view.entries.slice(1), earlier: 1 };
    const model = fromView(tail);
    expect(model.earlier).toBe(1);
    expect(model.items.map((item) => item.nodeId)).toEqual(['a1', 'c']);

    const whole = prependPage(model, { entries: view.entries.slice(0, 1), earlier: 0 });
    expect(whole.earlier).toBe(0);
    expect(whole.items.map((item) => item.nodeId)).toEqual(['u1', 'a1', 'c']);
    expect(whole.items[1]).toBe(model.items[0]);
    expect(card(whole, 'c1').status).toBe('error');

    // The same tail read again (after a run): what was read before it stays.
    const refreshed = fromView(tail, whole);
    expect(refreshed.items.map((item) => item.nodeId)).toEqual(['u1', 'a1', 'c']);
    expect(refreshed.earlier).toBe(0);
    // Another session's view does not inherit it.
    expect(fromView({ ...tail, session_id: 's2' }, whole).items).toHaveLength(2);
  });

  it('a streamed message keeps its key once stored', () => {
    const streamed = applyEvents(empty(), recording('markdown'));
    const stored: SessionView = {
      session_id: streamed.sessionId,
      title: 'hello',
      earlier: 0,
      state: STATE,
      entries: streamed.items.map((item) => ({
        node_id: item.nodeId ?? '',
        parent_id: null,
        kind: item.kind === 'user' ? 'user' : 'assistant',
        message:
          item.kind === 'user'
            ? { role: 'user', content: [{ type: 'text', text: item.text }] }
            : null,
        aborted: false,
        label: null,
        sibling_ids: [item.nodeId ?? ''],
        summary: null,
        tokens_before: null,
      })),
    };
    const model = fromView(stored, streamed);
    expect(model.items[0].key).toBe(streamed.items[0].key);
  });

  it('truncating drops an item and everything after it', () => {
    const model = fromView(view);
    const cut = truncateFrom(model, model.items[1].key);
    expect(cut.items.map((item) => item.nodeId)).toEqual(['u1']);
    expect(truncateFrom(model, 'nope')).toBe(model);
  });
});

describe('notices', () => {
  it('show a retry with its countdown and clear it when the answer starts', () => {
    let model = applyEvent(empty(), { type: 'agent_start' });
    model = applyEvent(model, {
      type: 'retry_scheduled',
      attempt: 1,
      delay_ms: 2000,
      error: { kind: 'overloaded', status: 529, message: 'Overloaded' },
    });
    expect(model.retry).toMatchObject({ attempt: 1, delayMs: 2000, message: 'Overloaded' });
    const start = recording('markdown').find(
      (e) => e.type === 'message_start' && e.message.role === 'assistant',
    );
    model = applyEvent(model, start as SessionEvent);
    expect(model.retry).toBeNull();
  });

  it('show a compaction as a divider with the token counts', () => {
    let model = applyEvent(empty(), { type: 'compaction_start', reason: 'manual' });
    expect(model.compacting).toBe(true);
    model = applyEvent(model, {
      type: 'compaction_end',
      reason: 'manual',
      tokens_before: 9000,
      tokens_after: 1200,
      summary: 'We talked.',
      node_id: 'c1',
    });
    expect(model.compacting).toBe(false);
    expect(model.items.at(-1)).toMatchObject({
      kind: 'compaction',
      tokensBefore: 9000,
      tokensAfter: 1200,
      summary: 'We talked.',
      nodeId: 'c1',
    });
  });

  it('a snapshot error is a notice that stops nothing, counted until dismissed', () => {
    let model = applyEvent(empty(), { type: 'agent_start' });
    model = applyEvent(model, { type: 'snapshot_error', message: 'disk full' });
    expect(model.snapshotNotice).toEqual({ count: 1, message: 'disk full' });
    expect(model.runError).toBeNull();
    expect(model.running).toBe(true);
    model = applyEvent(model, { type: 'snapshot_error', message: 'still full' });
    expect(model.snapshotNotice).toEqual({ count: 2, message: 'still full' });
    model = applyEvent(model, {
      type: 'agent_end',
      messages: [],
      status: 'completed',
      error: null,
    });
    expect(model.runError).toBeNull();
    // The stored view read after the run keeps it; another session does not.
    const view = { session_id: null, title: null, entries: [], earlier: 0, state: STATE };
    expect(fromView(view, model).snapshotNotice).toEqual({ count: 2, message: 'still full' });
    expect(fromView({ ...view, session_id: 's2' }, model).snapshotNotice).toBeNull();
  });

  it('a stopped run is not an error', () => {
    const model = applyEvent(empty(), {
      type: 'agent_end',
      messages: [],
      status: 'aborted',
      error: { kind: 'aborted' },
    });
    expect(model.runError).toBeNull();
  });
});

describe('a tool proposal', () => {
  it('leaves the conversation as it is (the approval queue takes it)', () => {
    const model = empty();
    const next = applyEvent(model, {
      type: 'approval_requested',
      approval_id: 'ap1',
      kind: 'create_tool',
      name: 'word_count',
      skill_md: '---\nname: word_count\n---\n',
      files: { 'SKILL.md': '---\nname: word_count\n---\n' },
      allowed_tools: [],
      reason: 'counting',
    });
    expect(next).toBe(model);
  });
});

/** A stored branch entry of `message` (its kind from its role). */
function entry(nodeId: string, parentId: string | null, message: AgentMessage): BranchEntry {
  return {
    node_id: nodeId,
    parent_id: parentId,
    kind: message.role === 'custom' ? 'user' : message.role,
    message,
    aborted: false,
    label: null,
    sibling_ids: [nodeId],
    summary: null,
    tokens_before: null,
  };
}

const USAGE = {
  input: 1,
  output: 1,
  cache_read: 0,
  cache_write: 0,
  cost: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
};

function userMessage(text: string): AgentMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function answer(content: AssistantContent[]): AgentMessage {
  return {
    role: 'assistant',
    content,
    api: 'openai-completions',
    provider: 'mock',
    model: 'm1',
    usage: USAGE,
    stop_reason: content.some((part) => part.type === 'tool_call') ? 'tool_use' : 'stop',
  };
}

function readCall(id: string, path: string): AssistantContent {
  return { type: 'tool_call', id, name: 'read', arguments: { path } };
}

function readResult(id: string, text: string): AgentMessage {
  return {
    role: 'tool_result',
    tool_call_id: id,
    tool_name: 'read',
    content: [{ type: 'text', text }],
    is_error: false,
  };
}

function resultText(tool: ToolView | undefined): string {
  const part = tool?.result?.content[0];
  return part?.type === 'text' ? part.text : '';
}

describe('tool cards of reused call ids', () => {
  // Two answers on one branch both call `call_1`, each with its own result.
  const entries: BranchEntry[] = [
    entry('u1', null, userMessage('read a and b')),
    entry('a1', 'u1', answer([readCall('call_1', 'a.txt')])),
    entry('r1', 'a1', readResult('call_1', 'contents of a')),
    entry('a2', 'r1', answer([readCall('call_1', 'b.txt')])),
    entry('r2', 'a2', readResult('call_1', 'contents of b')),
    entry('a3', 'r2', answer([{ type: 'text', text: 'Done.' }])),
  ];
  const view: SessionView = { session_id: 's1', title: null, entries, earlier: 0, state: STATE };

  it('a stored branch gives each message its own card, arguments and result', () => {
    const model = fromView(view);
    const [first, second] = assistants(model);
    expect(first.content).toEqual([readCall('call_1', 'a.txt')]);
    expect(second.content).toEqual([readCall('call_1', 'b.txt')]);
    const cards = cardsOf(model, 'call_1');
    expect(cards.map((tool) => tool?.status)).toEqual(['done', 'done']);
    expect(cards.map(resultText)).toEqual(['contents of a', 'contents of b']);
  });

  it('a tail starting with a result gets its card when the earlier page comes', () => {
    // The tail read first starts at the first result: its call is not read yet.
    const tail = fromView({ ...view, entries: entries.slice(2), earlier: 2 });
    expect(cardsOf(tail, 'call_1').map(resultText)).toEqual(['contents of b']);
    const whole = prependPage(tail, { entries: entries.slice(0, 2), earlier: 0 });
    expect(cardsOf(whole, 'call_1').map(resultText)).toEqual(['contents of a', 'contents of b']);
    expect(whole.looseResults.size).toBe(0);
    // Read again after a run: both stay right.
    const again = fromView({ ...view, entries: entries.slice(2), earlier: 2 }, whole);
    expect(cardsOf(again, 'call_1').map(resultText)).toEqual(['contents of a', 'contents of b']);
  });

  it('a recorded stream that reuses `call_1` in each turn shows each call its own output', () => {
    // The recorded tool run, with every call id made the same, as some providers send them.
    const events = recording('tools').map(
      (event) =>
        JSON.parse(
          JSON.stringify(event).replace(/"call_(read|edit|bash)"/g, '"call_1"'),
        ) as SessionEvent,
    );
    const bashOutput = events.findIndex((e) => e.type === 'tool_execution_update');
    const partial = applyEvents(empty(), events.slice(0, bashOutput + 1));
    const running = cardsOf(partial, 'call_1');
    expect(running.map((tool) => tool?.name)).toEqual(['read', 'edit', 'bash']);
    expect(running.map((tool) => tool?.status)).toEqual(['done', 'done', 'running']);
    // The bash output goes to the bash card only.
    expect(running.map((tool) => tool?.output)).toEqual(['', '', 'one\n']);

    const model = applyEvents(partial, events.slice(bashOutput + 1));
    const cards = cardsOf(model, 'call_1');
    expect(cards.map((tool) => tool?.status)).toEqual(['done', 'done', 'done']);
    expect(resultText(cards[0])).toBe('     1\thello world');
    expect((cards[1]?.result?.details as { diff: string }).diff).toContain('+goodbye world');
    expect(resultText(cards[2])).toContain('[Exit code 0]');
    expect(cards[2]?.output).toBe('one\ntwo\n');

    // The stored view read after the run keeps every card where it was.
    const stored: SessionView = {
      session_id: model.sessionId,
      title: null,
      earlier: 0,
      state: STATE,
      entries: storedEntries(events),
    };
    const reloaded = fromView(stored, model);
    expect(cardsOf(reloaded, 'call_1').map((tool) => tool?.name)).toEqual(['read', 'edit', 'bash']);
    expect(resultText(cardsOf(reloaded, 'call_1')[0])).toBe('     1\thello world');
    expect(resultText(cardsOf(reloaded, 'call_1')[2])).toContain('[Exit code 0]');
  });

  it('a window opened during a run gives tool events the latest call shown', () => {
    const opened = fromView({
      ...view,
      entries: entries.slice(0, 4),
      state: { ...STATE, is_streaming: true },
    });
    const model = applyEvent(opened, {
      type: 'tool_execution_update',
      tool_call_id: 'call_1',
      tool_name: 'read',
      output: 'partial b',
    });
    expect(cardsOf(model, 'call_1').map((tool) => tool?.output)).toEqual(['', 'partial b']);
  });

  it("a later run's tool events never reach an earlier run's card", () => {
    const first = fromView(view);
    const before = cardsOf(first, 'call_1');
    let model = applyEvent(first, { type: 'agent_start' });
    // A stray event for an id this run has not called yet.
    model = applyEvents(model, [
      { type: 'tool_execution_start', tool_call_id: 'call_1', tool_name: 'read', args: {} },
      { type: 'tool_execution_update', tool_call_id: 'call_1', tool_name: 'read', output: 'x' },
    ]);
    expect(cardsOf(model, 'call_1')).toEqual(before);
  });
});

/** The entries a run's `node_appended` events stored, with the messages they stored. */
function storedEntries(events: SessionEvent[]): BranchEntry[] {
  const entries: BranchEntry[] = [];
  let last: AgentMessage | null = null;
  for (const event of events) {
    if (event.type === 'message_end') last = event.message;
    if (event.type === 'node_appended' && last) {
      entries.push(entry(event.node_id, event.parent_id, last));
      last = null;
    }
  }
  return entries;
}

describe('a failed store write', () => {
  const events = recording('markdown');
  const userStored = events.findIndex((e) => e.type === 'node_appended');
  const assistantStart = events.findIndex(
    (e) => e.type === 'message_start' && e.message.role === 'assistant',
  );
  const aborted: SessionEvent = {
    type: 'agent_end',
    messages: [],
    status: 'aborted',
    error: { kind: 'aborted' },
  };
  const stored: SessionView = {
    session_id: 's1',
    title: 'Earlier',
    earlier: 0,
    state: STATE,
    entries: [
      entry('u0', null, userMessage('earlier question')),
      entry('a0', 'u0', answer([{ type: 'text', text: 'earlier answer' }])),
    ],
  };

  /** The chat of `stored`, then a run whose user message could not be saved: the run is
   * stopped while the answer streams. */
  function failedRun(): ChatModel {
    let model = fromView(stored);
    model = applyEvents(model, events.slice(0, userStored));
    model = applyEvent(model, { type: 'store_error', message: 'database or disk is full' });
    model = applyEvents(model, events.slice(assistantStart, assistantStart + 4));
    return applyEvent(model, aborted);
  }

  it('is its own run error, which the aborted end of the run does not clear', () => {
    const model = failedRun();
    expect(model.running).toBe(false);
    expect(model.runError).toEqual({
      kind: 'store',
      message: 'database or disk is full',
      unsavedPrompt: { text: 'hello', images: [], documents: [] },
    });
  });

  it('keeps the unsaved turn on screen, also after the stored view is read again', () => {
    const model = failedRun();
    const kinds = (m: ChatModel) => m.items.map((item) => [item.kind, item.nodeId]);
    expect(kinds(model)).toEqual([
      ['user', 'u0'],
      ['assistant', 'a0'],
      ['user', null],
      ['assistant', null],
    ]);
    // The cut-off answer is no longer streaming.
    expect(assistants(model)[1].status).toBe('aborted');
    expect(model.unsaved).toEqual({ from: model.items[2].key, parent: 'a0' });

    // The reload after the run: the store has only what it had.
    const reloaded = fromView(stored, model);
    expect(kinds(reloaded)).toEqual(kinds(model));
    expect(reloaded.items[3]).toBe(model.items[3]);
    expect(reloaded.runError?.kind).toBe('store');
    expect(reloaded.unsaved).toEqual(model.unsaved);

    // Another branch shown: the unsaved turn does not hang under it.
    const other = fromView({ ...stored, entries: stored.entries.slice(0, 1) }, model);
    expect(kinds(other)).toEqual([['user', 'u0']]);
    expect(other.unsaved).toBeNull();
    // Another chat: neither the turn nor its error (whose retry would send the prompt there).
    const elsewhere = fromView({ ...stored, session_id: 's2' }, model);
    expect(elsewhere.items).toHaveLength(2);
    expect(elsewhere.runError).toBeNull();
  });

  it('a new run (the prompt sent again) starts from what is stored', () => {
    const model = applyEvent(failedRun(), { type: 'agent_start' });
    expect(model.items.map((item) => item.nodeId)).toEqual(['u0', 'a0']);
    expect(model.unsaved).toBeNull();
    expect(model.runError).toBeNull();
    const again = applyEvents(model, events.slice(2));
    expect(again.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(again.items[2].nodeId).not.toBeNull();
  });

  it('of the answer, its prompt saved: retry asks for the answer again', () => {
    const end = events.findIndex((e) => e.type === 'message_end' && e.message.role === 'assistant');
    let model = applyEvents(fromView(stored), events.slice(0, end + 1));
    model = applyEvent(model, { type: 'store_error', message: 'disk I/O error' });
    model = applyEvent(model, aborted);
    expect(model.runError).toEqual({
      kind: 'store',
      message: 'disk I/O error',
      unsavedPrompt: null,
    });
    const user = model.items[2];
    expect(user.nodeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(model.unsaved).toEqual({ from: model.items[3].key, parent: user.nodeId });
    // Reloaded: the saved prompt is the leaf, the answer stays under it.
    const reloaded = fromView(
      {
        ...stored,
        session_id: model.sessionId,
        entries: [...stored.entries, entry(user.nodeId ?? '', 'a0', userMessage('hello'))],
      },
      model,
    );
    expect(reloaded.items).toHaveLength(4);
    expect((reloaded.items[3] as AssistantItem).content.map((part) => part.type)).toEqual([
      'thinking',
      'text',
    ]);
  });

  it('of a tool result: the call that ran keeps its output, not "not run"', () => {
    const withCall: SessionView = {
      ...stored,
      entries: [
        ...stored.entries,
        entry('u1', 'a0', userMessage('fill the disk')),
        entry('a1', 'u1', answer([readCall('c1', 'big.txt')])),
      ],
    };
    const call = answer([readCall('c1', 'big.txt')]);
    let model = fromView({ ...withCall, entries: withCall.entries.slice(0, 3) });
    model = applyEvents(model, [
      { type: 'agent_start' },
      { type: 'message_start', message: call },
      { type: 'message_end', message: call },
      { type: 'node_appended', node_id: 'a1', parent_id: 'u1', session_id: 's1' },
      { type: 'tool_execution_start', tool_call_id: 'c1', tool_name: 'read', args: {} },
      {
        type: 'tool_execution_end',
        tool_call_id: 'c1',
        tool_name: 'read',
        result: { content: [{ type: 'text', text: 'it ran' }] },
        is_error: false,
      },
      { type: 'store_error', message: 'the disk is full' },
      aborted,
    ]);
    const key = toolKey(model.items[3].key, 'c1');
    expect(model.tools[key].result).not.toBeNull();
    // The reload has the call but not its result: the window keeps what it saw.
    const reloaded = fromView(withCall, model);
    expect(reloaded.tools[key].status).toBe('done');
    expect(reloaded.tools[key].result).toEqual(model.tools[key].result);
    // Without a store error, a call with no stored result is not run.
    const plain = fromView(withCall, { ...model, runError: null });
    expect(plain.tools[key].result).toBeNull();
  });

  it('of the first message of a new chat keeps it too', () => {
    let model = applyEvents(empty(), events.slice(0, userStored));
    model = applyEvent(model, { type: 'store_error', message: 'read-only database' });
    model = applyEvent(model, aborted);
    expect(model.unsaved?.parent).toBeNull();
    const reloaded = fromView({ ...stored, session_id: null, entries: [] }, model);
    expect(reloaded.items.map((item) => item.kind)).toEqual(['user']);
    expect(reloaded.runError?.kind).toBe('store');
  });
});

describe('documents attached to a user message', () => {
  const SPEC = '[spec.pdf: PDF, 2 pages]\n--- page 1 ---\nIntro\n--- page 2 ---\nEnd\n';
  const DECK = '[deck.pptx: presentation, 1 slide]\n--- slide 1 ---\nTitle\n';
  const withDocuments: AgentMessage = {
    role: 'user',
    content: [
      { type: 'text', text: 'Summarise these' },
      { type: 'text', text: SPEC },
      { type: 'text', text: DECK },
      { type: 'image', data: 'AAAA', mime_type: 'image/png' },
    ],
  };

  it('leave their text out of the message and become its documents', () => {
    if (withDocuments.role !== 'user') throw new Error('not a user message');
    expect(textOf(withDocuments.content)).toBe('Summarise these');
    expect(documentsOf(withDocuments.content)).toEqual([
      { name: 'spec.pdf', label: 'PDF', parts: 2, partName: 'page', text: SPEC },
      { name: 'deck.pptx', label: 'presentation', parts: 1, partName: 'slide', text: DECK },
    ]);
    // Text the user typed that only looks like a heading somewhere is theirs.
    const typed = [{ type: 'text' as const, text: 'see [spec.pdf: PDF, 2 pages]\nplease' }];
    expect(textOf(typed)).toBe('see [spec.pdf: PDF, 2 pages]\nplease');
    expect(documentsOf(typed)).toEqual([]);
  });

  it('show on the stored and the streamed user item alike; documents alone leave no text', () => {
    const alone: AgentMessage = { role: 'user', content: [{ type: 'text', text: SPEC }] };
    const stored = fromView({
      session_id: 's1',
      title: null,
      earlier: 0,
      state: STATE,
      entries: [entry('u1', null, withDocuments)],
    });
    const item = stored.items[0] as UserItem;
    expect(item.text).toBe('Summarise these');
    expect(item.images).toHaveLength(1);
    expect(item.documents.map((d) => d.name)).toEqual(['spec.pdf', 'deck.pptx']);

    const streamed = applyEvents(stored, [
      { type: 'agent_start' },
      { type: 'message_start', message: alone },
      { type: 'message_end', message: alone },
    ]);
    const last = streamed.items[1] as UserItem;
    expect(last.text).toBe('');
    expect(last.documents).toEqual([
      { name: 'spec.pdf', label: 'PDF', parts: 2, partName: 'page', text: SPEC },
    ]);
  });

  it('go again with the prompt of a turn the store could not save', () => {
    let model = applyEvents(empty(), [
      { type: 'agent_start' },
      { type: 'message_start', message: withDocuments },
      { type: 'message_end', message: withDocuments },
      { type: 'store_error', message: 'database or disk is full' },
      { type: 'agent_end', messages: [], status: 'aborted', error: { kind: 'aborted' } },
    ]);
    expect(model.runError?.unsavedPrompt).toEqual({
      text: 'Summarise these',
      images: [{ data: 'AAAA', mime_type: 'image/png' }],
      documents: [
        {
          name: 'spec.pdf',
          label: 'PDF',
          size: 0,
          parts: 2,
          part_name: 'page',
          omitted_chars: 0,
          text: SPEC,
        },
        {
          name: 'deck.pptx',
          label: 'presentation',
          size: 0,
          parts: 1,
          part_name: 'slide',
          omitted_chars: 0,
          text: DECK,
        },
      ],
    });
    // A second failure of the same turn keeps the prompt.
    model = applyEvent(model, { type: 'store_error', message: 'still full' });
    expect(model.runError?.unsavedPrompt?.documents).toHaveLength(2);
  });
});

describe('another process writing to the session', () => {
  const view: SessionView = {
    session_id: 's1',
    title: null,
    earlier: 0,
    state: STATE,
    entries: [entry('u1', null, userMessage('hi'))],
  };

  it('asks for the stored view again and says so, until dismissed or another session', () => {
    let model = applyEvent(fromView(view), { type: 'agent_start' });
    const items = model.items;
    model = applyEvent(model, {
      type: 'session_written_elsewhere',
      session_id: 's1',
      other_leaf_id: 'x9',
    });
    expect(model.reloadWanted).toBe(true);
    expect(model.externalWrite).toEqual({ count: 1, otherLeafId: 'x9' });
    // Nothing of the streaming chat changes: the reload waits for the run's end.
    expect(model.items).toBe(items);
    expect(model.running).toBe(true);
    model = applyEvent(model, { type: 'session_written_elsewhere', session_id: 's1' });
    expect(model.externalWrite).toEqual({ count: 2, otherLeafId: null });

    const reloaded = fromView(
      view,
      applyEvent(model, { type: 'agent_end', messages: [], status: 'completed' }),
    );
    expect(reloaded.reloadWanted).toBe(false);
    expect(reloaded.externalWrite?.count).toBe(2);
    expect(fromView({ ...view, session_id: 's2' }, reloaded).externalWrite).toBeNull();
  });

  it('about another session is not this chat', () => {
    const model = fromView(view);
    expect(applyEvent(model, { type: 'session_written_elsewhere', session_id: 's2' })).toBe(model);
  });
});

describe('stream notices', () => {
  it('are counted with the events skipped, stop nothing, and stay on reload', () => {
    let model = applyEvent(empty(), { type: 'agent_start' });
    model = applyEvent(model, {
      type: 'stream_notice',
      message: 'Skipped 2 events that were not valid JSON',
      skipped: 2,
    });
    expect(model.streamNotice).toEqual({
      count: 1,
      skipped: 2,
      message: 'Skipped 2 events that were not valid JSON',
    });
    model = applyEvent(model, {
      type: 'stream_notice',
      message: 'Skipped 1 event that was not valid JSON',
      skipped: 1,
    });
    expect(model.streamNotice).toEqual({
      count: 2,
      skipped: 3,
      message: 'Skipped 1 event that was not valid JSON',
    });
    expect(model.running).toBe(true);
    expect(model.runError).toBeNull();
    const view = { session_id: null, title: null, entries: [], earlier: 0, state: STATE };
    expect(fromView(view, model).streamNotice?.count).toBe(2);
  });
});

/** A node's tree view as the stream carries it. */
function nodeView(id: string, parentId: string | null, kind: NodeKind): TreeNodeView {
  return {
    id,
    parent_id: parentId,
    kind,
    first_line: `${kind} ${id}`,
    label: null,
    aborted: false,
    tokens: 0,
    cost: 0,
    files: [],
  };
}

/** A recorded stream as the session API now sends it: each `node_appended` with the node's tree
 * view and its siblings (here the node alone, as for a first answer). The recordings predate
 * the two fields and are left as recorded. */
function withViews(events: SessionEvent[]): SessionEvent[] {
  let role: AgentMessage['role'] | null = null;
  return events.map((event) => {
    if (event.type === 'message_end') role = event.message.role;
    if (event.type !== 'node_appended') return event;
    const kind: NodeKind = role === 'custom' || role === null ? 'user' : role;
    role = null;
    return {
      ...event,
      sibling_ids: [event.node_id],
      node: nodeView(event.node_id, event.parent_id, kind),
    };
  });
}

/** The recorded session's id (every recording made a new session). */
function sessionOf(events: SessionEvent[]): string {
  const appended = events.find((event) => event.type === 'node_appended');
  return appended?.type === 'node_appended' ? appended.session_id : '';
}

/** The chat of the recorded session, already open (its id known) with nothing shown yet. */
function openOn(sessionId: string): ChatModel {
  return fromView({
    session_id: sessionId,
    title: 'A chat',
    entries: [],
    earlier: 0,
    state: STATE,
  });
}

describe('a stream carrying the stored nodes', () => {
  const stored: SessionView = {
    session_id: 's1',
    title: 'A chat',
    earlier: 0,
    state: STATE,
    entries: [
      entry('u1', null, userMessage('hello')),
      entry('a1', 'u1', answer([{ type: 'text', text: 'first answer' }])),
    ],
  };
  const second = answer([{ type: 'text', text: 'second answer' }]);
  const regenerated: SessionEvent[] = [
    { type: 'agent_start' },
    { type: 'message_start', message: second },
    { type: 'message_end', message: second },
    {
      type: 'node_appended',
      node_id: 'a2',
      parent_id: 'u1',
      session_id: 's1',
      sibling_ids: ['a1', 'a2'],
      node: nodeView('a2', 'u1', 'assistant'),
    },
    { type: 'agent_end', messages: [], status: 'completed' },
  ];

  function regenerate(events: SessionEvent[] = regenerated): ChatModel {
    const model = fromView(stored);
    return applyEvents(truncateFrom(model, model.items[1].key), events);
  }

  it('gives a regenerated answer its siblings at once (‹ 2/2 ›), as the stored view would', () => {
    const model = regenerate();
    expect(model.items.map((item) => [item.nodeId, item.siblings])).toEqual([
      ['u1', ['u1']],
      ['a2', ['a1', 'a2']],
    ]);
    expect(model.leafId).toBe('a2');
    expect(model.running).toBe(false);
    expect(needsStoredView(model)).toBe(false);
    // What reading the stored view would show: the same items, kept as they are.
    const view = {
      ...stored,
      entries: [stored.entries[0], { ...entry('a2', 'u1', second), sibling_ids: ['a1', 'a2'] }],
    };
    const reloaded = fromView(view, model);
    expect(reloaded.items).toEqual(model.items);
    expect(reloaded.items[1]).toBe(model.items[1]);
    expect(reloaded.leafId).toBe(model.leafId);
  });

  it('without the siblings (an older stream) keeps the node alone and reads the view after', () => {
    const old = regenerated.map((event) =>
      event.type === 'node_appended'
        ? { type: event.type, node_id: event.node_id, parent_id: 'u1', session_id: 's1' }
        : event,
    ) as SessionEvent[];
    const model = regenerate(old);
    expect(model.items[1]).toMatchObject({ nodeId: 'a2', siblings: ['a2'] });
    expect(model.readAfterRun).toBe(true);
    expect(needsStoredView(model)).toBe(true);
    // Siblings without the node's view, or the view without siblings: read it too.
    const halves = regenerated.map((event) =>
      event.type === 'node_appended' ? { ...event, node: null } : event,
    );
    expect(regenerate(halves).items[1].siblings).toEqual(['a1', 'a2']);
    expect(needsStoredView(regenerate(halves))).toBe(true);
    const noSiblings = regenerated.map((event) =>
      event.type === 'node_appended' ? { ...event, sibling_ids: null } : event,
    );
    expect(needsStoredView(regenerate(noSiblings))).toBe(true);
  });

  it('of a recorded tool run shows what the stored view would, and needs no reload', () => {
    const events = recording('tools');
    const model = applyEvents(openOn(sessionOf(events)), withViews(events));
    expect(needsStoredView(model)).toBe(false);
    const view: SessionView = {
      session_id: model.sessionId,
      title: 'A chat',
      earlier: 0,
      state: STATE,
      entries: storedEntries(events),
    };
    const reloaded = fromView(view, model);
    expect(reloaded.items.map((item) => [item.key, item.nodeId, item.siblings])).toEqual(
      model.items.map((item) => [item.key, item.nodeId, item.siblings]),
    );
    // Every message item kept as it streamed; the tool results are in their cards.
    reloaded.items.forEach((item, i) => expect(item).toBe(model.items[i]));
    expect(reloaded.leafId).toBe(model.leafId);
    expect(reloaded.leafId).toBe(view.entries.at(-1)?.node_id);
    for (const [key, tool] of Object.entries(reloaded.tools)) {
      expect(model.tools[key]).toMatchObject({ status: tool.status, result: tool.result });
    }
  });

  it('still reads the view after the recorded streams as they are (without the views)', () => {
    for (const name of ['markdown', 'tools', 'failure']) {
      const events = recording(name);
      const model = applyEvents(openOn(sessionOf(events)), events);
      expect(model.running).toBe(false);
      expect(needsStoredView(model)).toBe(true);
    }
  });

  it('reads the view after the first run of a new chat (its title) and after a compaction', () => {
    const events = withViews(recording('markdown'));
    expect(needsStoredView(applyEvents(empty(), events))).toBe(true);
    const plain = applyEvents(openOn(sessionOf(events)), events);
    expect(needsStoredView(plain)).toBe(false);

    const compacted = applyEvents(plain, [
      { type: 'agent_start' },
      { type: 'compaction_start', reason: 'threshold' },
      {
        type: 'compaction_end',
        reason: 'threshold',
        tokens_before: 9000,
        tokens_after: 1200,
        summary: 'We talked.',
        node_id: 'c1',
      },
      { type: 'agent_end', messages: [], status: 'completed' },
    ]);
    expect(needsStoredView(compacted)).toBe(true);
    // A compaction that failed changed nothing.
    const failed = applyEvents(plain, [
      { type: 'agent_start' },
      { type: 'compaction_end', reason: 'threshold', tokens_before: 9000, error: 'no' },
      { type: 'agent_end', messages: [], status: 'completed' },
    ]);
    expect(needsStoredView(failed)).toBe(false);
    // After an overflow the leaf went back above the failed answer (stored and shown): read it.
    const overflowed = applyEvents(plain, [
      { type: 'agent_start' },
      { type: 'compaction_end', reason: 'overflow', tokens_before: 9000, error: 'no' },
      { type: 'agent_end', messages: [], status: 'failed' },
    ]);
    expect(needsStoredView(overflowed)).toBe(true);
  });

  it('reads the view after a retry (the failed answer is stored, the retry is its sibling)', () => {
    const retried = applyEvents(regenerate(), [
      { type: 'agent_start' },
      {
        type: 'retry_scheduled',
        attempt: 1,
        delay_ms: 10,
        error: { kind: 'network', message: 'reset' },
      },
      { type: 'agent_end', messages: [], status: 'completed' },
    ]);
    expect(needsStoredView(retried)).toBe(true);
  });

  it('reads the view after a store error, an answer cut off unstored, or another writer', () => {
    const plain = regenerate();
    const [start, , end, appended, done] = regenerated;
    const failed = applyEvents(fromView(stored), [
      start,
      { type: 'message_start', message: second },
      { type: 'message_end', message: second },
      { type: 'store_error', message: 'disk full' },
      { type: 'agent_end', messages: [], status: 'aborted', error: { kind: 'aborted' } },
    ]);
    expect(failed.readAfterRun).toBe(true);
    expect(needsStoredView(failed)).toBe(true);
    // The error dismissed before the run ended: the unsaved turn still asks for the view.
    expect(needsStoredView({ ...failed, runError: null, readAfterRun: false })).toBe(true);

    // Stopped while streaming: no `message_end`, nothing stored.
    const cut = applyEvents(fromView(stored), [
      start,
      { type: 'message_start', message: second },
      { type: 'agent_end', messages: [], status: 'aborted', error: { kind: 'aborted' } },
    ]);
    expect(cut.items.at(-1)?.nodeId).toBeNull();
    expect(needsStoredView(cut)).toBe(true);

    const elsewhere = applyEvents(fromView(stored), [
      start,
      { type: 'session_written_elsewhere', session_id: 's1' },
      { type: 'message_start', message: second },
      end,
      appended,
      done,
    ]);
    expect(needsStoredView(elsewhere)).toBe(true);
    expect(needsStoredView(plain)).toBe(false);
  });

  it('reads the view after a run this window joined late, or a message it did not stream', () => {
    const joined = fromView({ ...stored, state: { ...STATE, is_streaming: true } });
    expect(joined.readAfterRun).toBe(true);
    const [, , , appended, done] = regenerated;
    expect(needsStoredView(applyEvents(joined, [appended, done]))).toBe(true);
    // Its next run, seen from its start, does not.
    const next = applyEvents(applyEvents(joined, [appended, done]), regenerated);
    expect(needsStoredView(next)).toBe(false);

    // An answer stored that no streamed item waits for.
    const unseen = applyEvents(fromView(stored), [regenerated[0], appended, done]);
    expect(unseen.leafId).toBe('a2');
    expect(needsStoredView(unseen)).toBe(true);
    // A marker or a tool result is no item: the leaf moves, nothing to read.
    const marker: SessionEvent = {
      type: 'node_appended',
      node_id: 'm1',
      parent_id: 'a1',
      session_id: 's1',
      sibling_ids: ['m1'],
      node: { ...nodeView('m1', 'a1', 'model_change'), first_line: 'm2' },
    };
    const moved = applyEvents(fromView(stored), [regenerated[0], marker, done]);
    expect(moved.leafId).toBe('m1');
    expect(needsStoredView(moved)).toBe(false);
  });
});
