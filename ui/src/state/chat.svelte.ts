// The chat of this window as Svelte state: the pure reducer (chat.ts) fed by the session's
// Channel, one flush per animation frame. Per-token state writes freeze webviews; message
// creation and the end of a run apply at once so nothing waits a frame to be exact.
import * as ipc from '../ipc';
import type { SessionEvent, SessionState, SessionView, ThinkingLevel } from '../ipc/wire';
import {
  applyEvents,
  fromView,
  needsStoredView,
  prependPage,
  truncateFrom,
  type ChatItem,
  type ChatModel,
  type RunError,
} from './chat';

/** Events that end something the user waits on: applied without waiting for a frame. */
const FLUSH_NOW = new Set<SessionEvent['type']>([
  'message_start',
  'message_end',
  'tool_execution_start',
  'tool_execution_end',
  'agent_end',
]);

type Schedule = (flush: () => void) => void;

const nextFrame: Schedule = (flush) => {
  // rAF pauses while the window is hidden; the buffer just grows until it shows again.
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush);
  else setTimeout(flush, 16);
};

export class ChatStore {
  model = $state.raw<ChatModel | null>(null);
  /** Set after a run ends or a branch changes: the session list may have changed. */
  listVersion = $state(0);
  /** Text for the composer (a user message gone to from the tree); taken by the chat view. */
  draft = $state<string | null>(null);
  /** Set when another process wrote to the session (and again once the chat has read it back):
   * the tree panel reads the whole tree again. */
  externalVersion = $state(0);

  #pending: SessionEvent[] = [];
  /** Not state: who else reads the stream (see `listen`). */
  #listeners: ((event: SessionEvent) => void)[] = [];
  #scheduled = false;
  #schedule: Schedule;
  #epoch = 0;

  constructor(schedule: Schedule = nextFrame) {
    this.#schedule = schedule;
  }

  get items(): ChatItem[] {
    return this.model?.items ?? [];
  }

  /** Opens the window's chat on `sessionId` (`null`: the most recent one). */
  async open(sessionId: string | null): Promise<void> {
    await this.#attach((onevent) => ipc.startSession(sessionId, onevent));
  }

  /**
   * Opens the window's chat on a stored session or (`sessionId` null) a new one, in `worktree`
   * when given, with a stream of its own: a session still running goes on in the background,
   * and one running in the background comes back with its live stream.
   */
  async openSession(sessionId: string | null, worktree: string | null): Promise<void> {
    await this.#attach((onevent) => ipc.openSession(sessionId, worktree, onevent));
  }

  /** Shows the session `start` opens, its events (and only its) from the new Channel. */
  async #attach(
    start: (onevent: (event: SessionEvent) => void) => Promise<SessionView>,
  ): Promise<void> {
    const epoch = ++this.#epoch;
    this.#pending = [];
    const view = await start((event) => {
      // Events of a chat this window has since left are dropped.
      if (epoch === this.#epoch) this.receive(event);
    });
    if (epoch === this.#epoch) this.show(view);
  }

  /**
   * Also hands every event of the window's chat to `listener` as it arrives (not batched: an
   * `approval_requested` must open its dialog at once). Returns what stops it.
   */
  listen(listener: (event: SessionEvent) => void): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((other) => other !== listener);
    };
  }

  /** Takes one event from the Channel. */
  receive(event: SessionEvent): void {
    for (const listener of this.#listeners) listener(event);
    this.#pending.push(event);
    if (FLUSH_NOW.has(event.type)) {
      this.flush();
      return;
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    if (!this.model || this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    this.model = applyEvents(this.model, events);
    // The tree panel shows the other writer's turns at once; the chat reads its branch again
    // once no run streams into it (a streaming message is not in the store yet).
    if (events.some((event) => event.type === 'session_written_elsewhere')) this.externalVersion++;
    const ended = events.some((event) => event.type === 'agent_end');
    if (this.model.reloadWanted && !this.model.running) void this.refresh();
    else if (ended) {
      // The stream carried the run's nodes with their siblings: only the header's figures
      // (cost, context use) are read, unless the stream left something out (`needsStoredView`).
      void (needsStoredView(this.model) ? this.refresh() : this.#settle());
    }
  }

  /** Replaces the model with a stored view (keeping the keys of messages already shown). */
  show(view: SessionView): void {
    this.flush();
    const external = this.model?.reloadWanted ?? false;
    this.model = fromView(view, this.model ?? undefined);
    this.listVersion++;
    if (external) this.externalVersion++;
  }

  /** Reads up to `count` entries of the branch before the first item; how many came. */
  async loadEarlier(count: number): Promise<number> {
    const model = this.model;
    const first = model?.items.find((item) => item.nodeId)?.nodeId;
    if (!model || !first || model.earlier === 0) return 0;
    const page = await ipc.earlierEntries(first, count);
    // Only if the chat is still where it asked from.
    if (this.model?.sessionId !== model.sessionId || this.model.items[0] !== model.items[0]) {
      return 0;
    }
    this.model = prependPage(this.model, page);
    return this.model.items.length - model.items.length;
  }

  /** The stored branch read again: the truth (node ids, siblings, context use, cost). After a
   * run the stream could not show in full, a failed command, another writer. */
  async refresh(): Promise<void> {
    const view = await ipc.sessionView();
    if (this.model && !this.model.running) this.show(view);
  }

  /** After a run the stream showed in full: the header's figures, read alone. */
  async #settle(): Promise<void> {
    const sessionId = this.model?.sessionId;
    const state = await ipc.sessionState();
    // Not over a chat shown since (another session) or a run started since (its end reads them).
    if (!this.model || this.model.sessionId !== sessionId || this.model.running) return;
    this.setState(state);
    // As after a reload: the session list may have changed (its cost, its order).
    this.listVersion++;
  }

  setState(state: SessionState): void {
    if (this.model) this.model = { ...this.model, state };
  }

  markRunning(): void {
    if (this.model) this.model = { ...this.model, running: true, runError: null };
  }

  /** A run that could not start: the composer is free again (and `runError`, the error it
   * tried to get past, shows again). */
  notRunning(runError: RunError | null = null): void {
    if (!this.model) return;
    this.model = { ...this.model, running: false, runError: runError ?? this.model.runError };
  }

  dismissError(): void {
    if (this.model) this.model = { ...this.model, runError: null };
  }

  dismissSnapshotNotice(): void {
    if (this.model) this.model = { ...this.model, snapshotNotice: null };
  }

  dismissStreamNotice(): void {
    if (this.model) this.model = { ...this.model, streamNotice: null };
  }

  dismissExternalWrite(): void {
    if (this.model) this.model = { ...this.model, externalWrite: null };
  }

  /** Drops `key` and everything after it: an edit or a regenerate takes their place. */
  truncateFrom(key: string): void {
    if (this.model) this.model = { ...truncateFrom(this.model, key), running: true };
  }

  async setModel(provider: string, model: string): Promise<void> {
    this.setState(await ipc.setModel(provider, model));
  }

  async setThinkingLevel(level: ThinkingLevel): Promise<void> {
    this.setState(await ipc.setThinkingLevel(level));
  }
}
