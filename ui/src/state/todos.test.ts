import { describe, expect, it } from 'vitest';
import type { AssistantContent, BranchEntry, JsonValue } from '../ipc/wire';
import type { AssistantItem, ChatItem, UserItem } from './chat';
import { currentTodos, MAX_TODOS, parseTodos, todosOfEntry } from './todos';

let next = 0;

function user(text: string): UserItem {
  next += 1;
  return {
    kind: 'user',
    key: `k${next}`,
    nodeId: null,
    siblings: [],
    text,
    images: [],
    documents: [],
  };
}

function assistant(...content: AssistantContent[]): AssistantItem {
  next += 1;
  return {
    kind: 'assistant',
    key: `k${next}`,
    nodeId: null,
    siblings: [],
    content,
    status: 'done',
    errorMessage: null,
    model: 'm1',
  };
}

function call(name: string, args: Record<string, JsonValue>): AssistantContent {
  next += 1;
  return { type: 'tool_call', id: `c${next}`, name, arguments: args };
}

function todo(todos: JsonValue): AssistantContent {
  return call('todo', { todos });
}

describe('the todo list', () => {
  it('is null without a todo call', () => {
    expect(currentTodos([])).toBeNull();
    const items: ChatItem[] = [
      user('hi'),
      assistant({ type: 'text', text: 'hello' }, call('bash', { command: 'ls' })),
    ];
    expect(currentTodos(items)).toBeNull();
  });

  it('is the last call’s list, across messages and within one', () => {
    const first = todo([{ content: 'a', status: 'pending' }]);
    const second = todo([
      { content: 'a', status: 'done' },
      { content: 'b', status: 'in_progress' },
    ]);
    const third = todo([
      { content: 'a', status: 'done' },
      { content: 'b', status: 'done' },
    ]);
    expect(currentTodos([user('go'), assistant(first), assistant(second)])).toEqual([
      { content: 'a', status: 'done' },
      { content: 'b', status: 'in_progress' },
    ]);
    expect(
      currentTodos([assistant(first), assistant(second, call('read', { path: 'x' }), third)]),
    ).toEqual([
      { content: 'a', status: 'done' },
      { content: 'b', status: 'done' },
    ]);
  });

  it('skips calls whose arguments are not a list', () => {
    const good = todo([{ content: 'a', status: 'pending' }]);
    for (const bad of [
      call('todo', {}),
      todo('not json ['),
      todo({ content: 'a', status: 'pending' }),
      todo([{ content: 'a', status: 'finished' }, 7, null, { content: '', status: 'done' }]),
    ]) {
      expect(currentTodos([assistant(good), assistant(bad)])).toEqual([
        { content: 'a', status: 'pending' },
      ]);
    }
  });

  it('drops malformed entries and unknown statuses, keeping the rest', () => {
    expect(
      parseTodos({
        todos: [
          { content: ' a ', status: 'pending' },
          { content: 'b', status: 'completed' },
          { content: 3, status: 'done' },
          { status: 'done' },
          'c',
          { content: 'd', status: 'done', extra: true },
        ],
      }),
    ).toEqual([
      { content: 'a', status: 'pending' },
      { content: 'd', status: 'done' },
    ]);
  });

  it('reads a list sent as a JSON string, and an empty list clears it', () => {
    expect(parseTodos({ todos: '[{"content":"a","status":"in_progress"}]' })).toEqual([
      { content: 'a', status: 'in_progress' },
    ]);
    const full = todo([{ content: 'a', status: 'pending' }]);
    expect(currentTodos([assistant(full), assistant(todo([]))])).toEqual([]);
  });

  it('keeps at most 100 tasks', () => {
    const many = Array.from({ length: 150 }, (_, i) => ({ content: `t${i}`, status: 'pending' }));
    const todos = parseTodos({ todos: many });
    expect(todos).toHaveLength(MAX_TODOS);
    expect(todos?.[99].content).toBe('t99');
  });
});

describe('the pinned list', () => {
  it('stays the same array while the same call is the last one', () => {
    const list = todo([{ content: 'a', status: 'pending' }]);
    const items: ChatItem[] = [assistant(list)];
    const first = currentTodos(items);
    expect(currentTodos([...items, user('more'), assistant({ type: 'text', text: 'x' })])).toBe(
      first,
    );
  });
});

describe('the checklist a stored turn set', () => {
  it('is read from the turn’s last todo call, and is null for other turns', () => {
    const entry = (content: AssistantContent[]): BranchEntry =>
      ({
        node_id: 'n1',
        kind: 'assistant',
        label: null,
        message: { role: 'assistant', content },
      }) as unknown as BranchEntry;
    const call = (todos: unknown): AssistantContent => ({
      type: 'tool_call',
      id: 'c',
      name: 'todo',
      arguments: { todos: todos as JsonValue },
    });
    expect(
      todosOfEntry(
        entry([
          call([{ content: 'a', status: 'pending' }]),
          call([{ content: 'a', status: 'done' }]),
        ]),
      ),
    ).toEqual([{ content: 'a', status: 'done' }]);
    expect(todosOfEntry(entry([{ type: 'text', text: 'hi' }]))).toBeNull();
    expect(todosOfEntry({ ...entry([]), message: null } as unknown as BranchEntry)).toBeNull();
  });
});

describe('a list the tool refused', () => {
  it('is passed over for the list before it', () => {
    const call = (id: string, status: string): AssistantContent => ({
      type: 'tool_call',
      id,
      name: 'todo',
      arguments: { todos: [{ content: 'step', status }] },
    });
    const item: AssistantItem = {
      kind: 'assistant',
      key: 'a1',
      nodeId: null,
      siblings: [],
      content: [call('c1', 'pending'), call('c2', 'done')],
      status: 'done',
      errorMessage: null,
      model: 'm',
    };
    expect(currentTodos([item])).toEqual([{ content: 'step', status: 'done' }]);
    expect(currentTodos([item], (key, id) => key === 'a1' && id === 'c2')).toEqual([
      { content: 'step', status: 'pending' },
    ]);
  });
});
