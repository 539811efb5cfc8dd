import { describe, expect, it } from 'vitest';
import type { ChatItem, UserItem } from '../../state/chat';
import { cleared, deliver, EMPTY_QUEUE, enqueue, joinBack, without } from './queue';

function user(key: string, text: string): UserItem {
  return { key, nodeId: null, siblings: [], kind: 'user', text, images: [], documents: [] };
}

function answer(key: string): ChatItem {
  return {
    key,
    nodeId: null,
    siblings: [],
    kind: 'assistant',
    content: [],
    status: 'streaming',
    errorMessage: null,
    model: 'm1',
  };
}

const BEFORE: ChatItem[] = [user('n-u1', 'fix the tests'), answer('k-1')];

describe('queued messages', () => {
  it('are shown in the order typed', () => {
    let queue = enqueue(EMPTY_QUEUE, 'steer', 'use vitest', BEFORE);
    queue = enqueue(queue, 'follow_up', 'then the docs', BEFORE);
    expect(queue.entries).toEqual([
      { id: 1, kind: 'steer', text: 'use vitest' },
      { id: 2, kind: 'follow_up', text: 'then the docs' },
    ]);
  });

  it('leave when the stream shows a new user message with their words, first match first', () => {
    let queue = enqueue(EMPTY_QUEUE, 'steer', 'again', BEFORE);
    queue = enqueue(queue, 'follow_up', 'again', BEFORE);
    queue = enqueue(queue, 'follow_up', 'other', BEFORE);
    // Nothing new: the same state.
    expect(deliver(queue, BEFORE)).toBe(queue);
    const items = [...BEFORE, user('k-2', 'again')];
    queue = deliver(queue, items);
    expect(queue.entries.map((e) => [e.id, e.text])).toEqual([
      [2, 'again'],
      [3, 'other'],
    ]);
    // The same message seen again (a later flush) delivers nothing more.
    expect(deliver(queue, [...items, answer('k-3')])).toBe(queue);
    queue = deliver(queue, [...items, answer('k-3'), user('k-4', ' other ')]);
    expect(queue.entries.map((e) => e.id)).toEqual([2]);
  });

  it('are not delivered by a message that was there before they were queued', () => {
    const queue = enqueue(EMPTY_QUEUE, 'steer', 'fix the tests', BEFORE);
    expect(deliver(queue, BEFORE).entries).toHaveLength(1);
    // Nor by a user message with other words.
    expect(deliver(queue, [...BEFORE, user('k-2', 'something else')]).entries).toHaveLength(1);
  });

  it('are removed one by one, or all at once', () => {
    let queue = enqueue(EMPTY_QUEUE, 'steer', 'a', []);
    queue = enqueue(queue, 'steer', 'b', []);
    expect(without(queue, 1).entries.map((e) => e.text)).toEqual(['b']);
    expect(without(queue, 9)).toBe(queue);
    expect(cleared(queue).entries).toEqual([]);
    expect(cleared(EMPTY_QUEUE)).toBe(EMPTY_QUEUE);
    expect(deliver(EMPTY_QUEUE, [user('k-1', 'a')])).toBe(EMPTY_QUEUE);
  });

  it('go back to the composer after what it holds, a blank line between each', () => {
    expect(joinBack('', ['one', 'two'])).toBe('one\n\ntwo');
    expect(joinBack('draft\n', ['one'])).toBe('draft\n\none');
    expect(joinBack('draft', [])).toBe('draft');
    expect(joinBack('', [])).toBe('');
  });
});
