// The chat's queued messages as state: steers and follow-ups typed while the agent works, shown
// above the composer until the stream delivers them (`queue.ts` decides which a user message
// delivers). Sending one, taking one back to edit (`unqueue`), removing one, and forgetting them
// when the run stops or another session is shown. Created while the chat view initialises (its
// effects live as long as it does).
import { untrack } from 'svelte';
import * as ipc from '../../ipc';
import type { ArborError } from '../../ipc';
import type { ChatItem } from '../../state/chat';
import {
  cleared,
  deliver,
  EMPTY_QUEUE,
  enqueue,
  without,
  type QueueKind,
  type QueuedMessage,
} from './queue';

/** What the chat view asks of its composer (`Composer.svelte`'s exported functions). */
export interface ComposerHandle {
  focus: () => void;
  fill: (text: string) => void;
  putBack: (texts: readonly string[]) => void;
  say: (message: string, tone?: 'error' | 'info') => void;
}

/** What the queue needs of the chat view. */
export interface QueueHost {
  /** The chat's items now. */
  items: () => readonly ChatItem[];
  /** The session shown (`null`: none yet). */
  sessionId: () => string | null;
  composer: () => ComposerHandle | undefined;
  onerror: (error: ArborError) => void;
  /** Reads the chat again after a failure. */
  refresh: () => Promise<unknown>;
}

export class MessageQueue {
  state = $state.raw(EMPTY_QUEUE);

  #host: QueueHost;
  #session: string | null = null;

  constructor(host: QueueHost) {
    this.#host = host;

    // A queued message leaves the list when the stream shows it as a user message.
    $effect(() => {
      const current = host.items();
      untrack(() => {
        const next = deliver(this.state, current);
        if (next !== this.state) this.state = next;
      });
    });

    // Another session shown: its queue is not this one's (the other goes on in the background).
    $effect(() => {
      const id = host.sessionId();
      untrack(() => {
        if (this.#session !== null && id !== this.#session) this.state = cleared(this.state);
        this.#session = id;
      });
    });
  }

  get entries(): readonly QueuedMessage[] {
    return this.state.entries;
  }

  /** Sends a steer or a follow-up, shown queued until the stream delivers it; if Rust refuses
   * it, its text goes back to the composer. */
  send(kind: QueueKind, text: string): void {
    this.state = enqueue(this.state, kind, text, this.#host.items());
    const id = this.state.nextId - 1;
    const sent = kind === 'steer' ? ipc.steer(text) : ipc.followUp(text);
    sent.catch(async (raw) => {
      this.state = without(this.state, id);
      this.#host.composer()?.putBack([text]);
      this.#host.onerror(ipc.toArborError(raw));
      await this.#host.refresh().catch(() => undefined);
    });
  }

  /** Takes a queued message back to edit it in the composer (unless it was delivered). */
  async edit(entry: QueuedMessage): Promise<void> {
    try {
      const taken = await ipc.unqueue(entry.kind === 'follow_up', entry.text);
      this.state = without(this.state, entry.id);
      const composer = this.#host.composer();
      if (taken) composer?.putBack([entry.text]);
      else {
        composer?.say('That message was already delivered: it is in the chat.');
        composer?.focus();
      }
    } catch (raw) {
      this.#host.onerror(ipc.toArborError(raw));
    }
  }

  /** Removes a queued message (one already delivered just leaves the list). */
  async remove(entry: QueuedMessage): Promise<void> {
    try {
      await ipc.unqueue(entry.kind === 'follow_up', entry.text);
      this.state = without(this.state, entry.id);
      // Its buttons are gone: the message keeps the focus.
      this.#host.composer()?.focus();
    } catch (raw) {
      this.#host.onerror(ipc.toArborError(raw));
    }
  }

  /** The run stopped: nothing is queued any more (`abort` gave back what was not delivered). */
  clear(): void {
    this.state = cleared(this.state);
  }
}
