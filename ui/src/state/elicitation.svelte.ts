// A project window's MCP elicitations as Svelte state: the questions servers ask the person in
// the middle of a tool call, which arrive on the session's stream (`elicitation_requested`,
// handed over by `ChatStore.listen`) and leave it when answered here or elsewhere
// (`elicitation_resolved`: another front end, or an abort that cancelled them). Only the shown
// session's questions can be answered: those of a session the window leaves are put aside and
// come back when it is shown again, like the permission requests (permissions.svelte.ts).
import * as ipc from '../ipc';
import type {
  ArborError,
  ElicitationAction,
  ElicitationRequest,
  JsonValue,
  SessionEvent,
} from '../ipc';
import {
  answeredText,
  current,
  EMPTY_ELICITATIONS,
  reduce,
  removeRequest,
  resolvedElsewhereText,
  waiting,
  withRestored,
  type ElicitationState,
} from './elicitation';

export class ElicitationStore {
  state = $state.raw<ElicitationState>(EMPTY_ELICITATIONS);
  /** An answer that failed (shown in the dialog); cleared when the shown request changes. */
  error = $state.raw<ArborError | null>(null);
  /** An answer being sent: the dialog's buttons wait. */
  busy = $state(false);
  /** What the last answer did, in words (the window's live region reads it). */
  status = $state('');

  get shown(): ElicitationRequest | null {
    return current(this.state);
  }

  /** How many wait behind the one shown. */
  get waiting(): number {
    return waiting(this.state);
  }

  /** Takes one event of the session's stream; only the elicitation events concern it. */
  receive(event: SessionEvent): void {
    const before = this.shown;
    if (event.type === 'elicitation_resolved') {
      // Still queued: not answered here (answers here leave the queue at once).
      // Still queued and not the one being answered: resolved elsewhere (Rust also reports
      // an answer from here, possibly before the command itself returns).
      const left = this.state.queue.find((item) => item.request_id === event.request_id);
      if (left && event.request_id !== this.#answering) {
        this.status = resolvedElsewhereText(event.action, left.server);
      }
      this.#gone.delete(event.request_id);
    }
    this.state = reduce(this.state, event);
    if (this.shown !== before) this.error = null;
  }

  /** The question whose answer is being sent. */
  #answering: string | null = null;

  /** Questions Rust said no longer wait (`not_found`): the next answer only closes them. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #gone = new Set<string>();

  /** Questions left waiting by sessions the window no longer shows, by session id. Not state:
   * nothing shows it until `enter` puts a session's back into the queue. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #away = new Map<string, ElicitationRequest[]>();

  /**
   * The window shows another session (opened with its own stream): the questions of
   * `sessionId` (the one left) are put aside — only the shown session's can be answered here.
   */
  leave(sessionId: string | null): void {
    const before = this.shown;
    if (sessionId !== null && this.state.queue.length > 0) {
      this.#away.set(sessionId, this.state.queue);
    }
    this.state = { queue: [] };
    if (this.shown !== before) this.error = null;
  }

  /**
   * The window shows `sessionId` again: the questions it left waiting come back in front while
   * it still waits (`waiting`: its activity says so), else they are forgotten (answered, or
   * its call ended, meanwhile).
   */
  enter(sessionId: string | null, waiting: boolean): void {
    if (sessionId === null) return;
    const left = this.#away.get(sessionId) ?? [];
    this.#away.delete(sessionId);
    if (waiting) this.state = withRestored(this.state, left);
  }

  /**
   * Answers the question shown: `accept` with the form's content, `decline` and `cancel` with
   * none. False when it failed: the error shows and the question stays (content that does not
   * fit the form: `invalid_request`, every problem in its message).
   */
  async answer(
    action: ElicitationAction,
    content: Record<string, JsonValue> | null = null,
  ): Promise<boolean> {
    const request = this.shown;
    if (!request || this.busy) return false;
    if (this.#gone.has(request.request_id)) {
      // Rust said it no longer waits: any answer now only closes it here.
      this.#gone.delete(request.request_id);
      this.state = removeRequest(this.state, request.request_id);
      this.error = null;
      this.status = `${request.server}’s question no longer waits; nothing was sent.`;
      return true;
    }
    this.busy = true;
    this.#answering = request.request_id;
    this.error = null;
    try {
      await ipc.answerElicitation(request.request_id, action, action === 'accept' ? content : null);
      this.state = removeRequest(this.state, request.request_id);
      this.status = answeredText(action, request.server);
      return true;
    } catch (raw) {
      const error = ipc.toArborError(raw);
      // Shown in the dialog, which stays open. A question that no longer waits (answered
      // elsewhere, or its call ended, before this answer arrived) closes with the next answer,
      // or with its `elicitation_resolved`.
      if (error.code === 'not_found' || error.code === 'not_pending') {
        this.#gone.add(request.request_id);
      }
      this.error = error;
      return false;
    } finally {
      this.busy = false;
      this.#answering = null;
    }
  }
}
