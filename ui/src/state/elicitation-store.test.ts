// The elicitation store (elicitation.svelte.ts) over the fake ipc (test-ipc.ts); its pure rules
// are tested in elicitation.test.ts, the dialog in lib/mcp/ElicitationDialog.test.ts.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../ipc';
import type { ElicitationRequest } from '../ipc';
import { ELICITATION_REQUEST } from '../test-ipc';
import { ElicitationStore } from './elicitation.svelte';

vi.mock('../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
});

function ask(store: ElicitationStore, id: string, server = 'github'): ElicitationRequest {
  const request = { ...ELICITATION_REQUEST, request_id: id, server };
  store.receive({ type: 'elicitation_requested', request });
  return request;
}

describe('the elicitation store', () => {
  it('answers the question shown, with content only when it accepts', async () => {
    const store = new ElicitationStore();
    ask(store, 'a');
    ask(store, 'b', 'linear');
    expect(store.waiting).toBe(1);
    expect(await store.answer('accept', { reason: 'x' })).toBe(true);
    expect(ipc.answerElicitation).toHaveBeenLastCalledWith('a', 'accept', { reason: 'x' });
    expect(store.status).toBe('Sent your answer to github.');
    expect(store.shown?.request_id).toBe('b');
    expect(await store.answer('decline', { ignored: true })).toBe(true);
    expect(ipc.answerElicitation).toHaveBeenLastCalledWith('b', 'decline', null);
    expect(store.status).toBe('Declined linear’s question.');
    expect(store.shown).toBeNull();
    expect(await store.answer('cancel')).toBe(false);
    expect(ipc.answerElicitation).toHaveBeenCalledTimes(2);
  });

  it('says so when a question is resolved elsewhere, and not for one answered here', async () => {
    const store = new ElicitationStore();
    ask(store, 'a');
    store.receive({ type: 'elicitation_resolved', request_id: 'a', action: 'cancel' });
    expect(store.shown).toBeNull();
    expect(store.status).toContain('withdrawn');
    ask(store, 'b');
    await store.answer('cancel');
    store.receive({ type: 'elicitation_resolved', request_id: 'b', action: 'cancel' });
    expect(store.status).toBe('Dismissed github’s question.');
  });

  it('does not call its own answer one given elsewhere when Rust reports it first', async () => {
    const store = new ElicitationStore();
    ask(store, 'a');
    vi.mocked(ipc.answerElicitation).mockImplementationOnce(async () => {
      store.receive({ type: 'elicitation_resolved', request_id: 'a', action: 'accept' });
      expect(store.status).toBe('');
    });
    expect(await store.answer('accept', {})).toBe(true);
    expect(store.status).toBe('Sent your answer to github.');
  });

  it('keeps the question and the refusal when the content does not fit', async () => {
    const store = new ElicitationStore();
    ask(store, 'a');
    vi.mocked(ipc.answerElicitation).mockRejectedValueOnce(
      new ipc.ArborError('invalid_request', 'the answer does not fit the form: age: required'),
    );
    expect(await store.answer('accept', {})).toBe(false);
    expect(store.shown?.request_id).toBe('a');
    expect(store.error?.code).toBe('invalid_request');
    expect(store.busy).toBe(false);
    // Trying again clears it.
    expect(await store.answer('accept', { age: 3 })).toBe(true);
    expect(store.error).toBeNull();
  });

  it('shows that a question no longer waits, then closes it without asking Rust again', async () => {
    const store = new ElicitationStore();
    ask(store, 'a');
    vi.mocked(ipc.answerElicitation).mockRejectedValueOnce(
      new ipc.ArborError('not_found', 'the question is no longer waiting'),
    );
    expect(await store.answer('accept', {})).toBe(false);
    expect(store.shown?.request_id).toBe('a');
    expect(store.error?.message).toBe('the question is no longer waiting');
    expect(await store.answer('cancel')).toBe(true);
    expect(ipc.answerElicitation).toHaveBeenCalledTimes(1);
    expect(store.shown).toBeNull();
    expect(store.error).toBeNull();
    expect(store.status).toBe('github’s question no longer waits; nothing was sent.');
  });

  it('answers only the shown session’s questions; a session shown again gets its back', () => {
    const store = new ElicitationStore();
    ask(store, 'a');
    store.leave('s1');
    expect(store.shown).toBeNull();
    ask(store, 'b');
    store.leave('s2');
    // Back on s1 while it still waits: its question first.
    store.enter('s1', true);
    expect(store.shown?.request_id).toBe('a');
    store.leave('s1');
    // s2's run ended meanwhile: its question is forgotten.
    store.enter('s2', false);
    expect(store.shown).toBeNull();
    store.enter('s1', true);
    expect(store.state.queue.map((item) => item.request_id)).toEqual(['a']);
    // A new chat (no id yet) puts nothing aside and gets nothing back.
    store.leave(null);
    store.enter(null, true);
    expect(store.shown).toBeNull();
  });
});
