// The reducer fed with real streams recorded from `arbor --mode json` against the mock
// provider (scripts/record-ui-streams.sh): the desktop reads what the CLI writes.
import { describe, expect, it } from 'vitest';
import type { SessionEvent, SessionState, SessionView } from '../ipc/wire';
import {
  applyEvent,
  applyEvents,
  fromView,
  prependPage,
  truncateFrom,
  type AssistantItem,
  type ChatModel,
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
    expect(Object.keys(model.tools).sort()).toEqual(['call_bash', 'call_edit', 'call_read']);
    expect(model.tools.call_read.status).toBe('done');
    expect(model.tools.call_read.result?.details).toMatchObject({ path: 'notes.txt' });
    const edit = model.tools.call_edit.result?.details as { diff: string };
    expect(edit.diff).toContain('-hello world');
    expect(edit.diff).toContain('+goodbye world');
    expect(model.tools.call_bash.output).toContain('one');
    expect(model.tools.call_bash.output).toContain('two');
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
    expect(partial.tools.call_bash.status).toBe('running');
    expect(partial.tools.call_bash.output.length).toBeGreaterThan(0);
    expect(partial.tools.call_bash.result).toBeNull();
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
    expect(model.tools.c1.status).toBe('error');
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
    expect(whole.tools.c1).toBeDefined();

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
