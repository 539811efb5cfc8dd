import { describe, expect, it } from 'vitest';
import type { AssistantContent } from '../ipc/wire';
import type { AssistantItem, ChatItem, MessageStatus, UserItem } from './chat';
import { planAnswer, planLines } from './plan-card';

const user: UserItem = {
  kind: 'user',
  key: 'k1',
  nodeId: 'n1',
  siblings: [],
  text: 'Plan the parser',
  images: [],
  documents: [],
};

function answer(status: MessageStatus, ...content: AssistantContent[]): AssistantItem {
  return {
    kind: 'assistant',
    key: 'k2',
    nodeId: 'n2',
    siblings: [],
    content,
    status,
    errorMessage: null,
    model: 'm1',
  };
}

describe('the plan card’s answer', () => {
  it('is the last item when it is a finished answer with text', () => {
    const items: ChatItem[] = [
      user,
      answer(
        'done',
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: '1. Read\n' },
        { type: 'text', text: '2. Change' },
      ),
    ];
    expect(planAnswer(items)).toEqual({ key: 'k2', text: '1. Read\n\n\n2. Change' });
  });

  it('is nothing while it streams, when it stopped, without text, or after the user', () => {
    expect(planAnswer([user, answer('streaming', { type: 'text', text: 'x' })])).toBeNull();
    expect(planAnswer([user, answer('aborted', { type: 'text', text: 'x' })])).toBeNull();
    expect(planAnswer([user, answer('error', { type: 'text', text: 'x' })])).toBeNull();
    expect(planAnswer([user, answer('done', { type: 'text', text: '  ' })])).toBeNull();
    expect(planAnswer([user])).toBeNull();
    expect(planAnswer([])).toBeNull();
  });
});

describe('the plan’s first lines', () => {
  it('keeps a short plan whole and cuts a long one', () => {
    expect(planLines('a\nb', 3)).toEqual({ text: 'a\nb', more: 0 });
    expect(planLines('a\nb\nc\nd\ne', 3)).toEqual({ text: 'a\nb\nc', more: 2 });
  });
});
