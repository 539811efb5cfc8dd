// Messages typed while the agent works (a steer, or a follow-up for when it would stop), shown
// above the composer until the stream delivers them. Pure: the chat view keeps the state, feeds
// it the chat's items, and asks Rust to take one back (`unqueue`) before it is edited or removed.
import type { ChatItem } from '../../state/chat';

export type QueueKind = 'steer' | 'follow_up';

/** One message waiting to be delivered. */
export interface QueuedMessage {
  id: number;
  kind: QueueKind;
  text: string;
}

export interface QueueState {
  entries: readonly QueuedMessage[];
  /** The user messages of the chat already there (by item key) when the queue was last
   * empty or fed: only a user message not among them delivers a queued one. */
  seen: ReadonlySet<string>;
  nextId: number;
}

export const EMPTY_QUEUE: QueueState = { entries: [], seen: new Set(), nextId: 1 };

function userKeys(items: readonly ChatItem[]): Set<string> {
  const keys = new Set<string>();
  for (const item of items) if (item.kind === 'user') keys.add(item.key);
  return keys;
}

/**
 * `text` queued as `kind`, shown last. `items` are the chat's items now: the user messages
 * already there cannot deliver it (an earlier message with the same words is not it).
 */
export function enqueue(
  state: QueueState,
  kind: QueueKind,
  text: string,
  items: readonly ChatItem[],
): QueueState {
  const seen = state.entries.length === 0 ? userKeys(items) : state.seen;
  return {
    entries: [...state.entries, { id: state.nextId, kind, text }],
    seen,
    nextId: state.nextId + 1,
  };
}

/** Without the entry `id` (taken back, removed, or failed to queue). */
export function without(state: QueueState, id: number): QueueState {
  const entries = state.entries.filter((entry) => entry.id !== id);
  return entries.length === state.entries.length ? state : { ...state, entries };
}

/** Nothing queued (the run was stopped: what was left went back to the composer). */
export function cleared(state: QueueState): QueueState {
  return state.entries.length === 0 ? state : { ...state, entries: [] };
}

/**
 * The queue once the stream showed `items`: each user message not seen before delivers the
 * first queued message (in order) with its words, which leaves the queue. The same `state`
 * when nothing changed.
 */
export function deliver(state: QueueState, items: readonly ChatItem[]): QueueState {
  if (state.entries.length === 0) return state;
  let entries = state.entries;
  let seen: Set<string> | null = null;
  for (const item of items) {
    if (item.kind !== 'user' || state.seen.has(item.key) || seen?.has(item.key)) continue;
    seen ??= new Set(state.seen);
    seen.add(item.key);
    const text = item.text.trim();
    const at = entries.findIndex((entry) => entry.text.trim() === text);
    if (at >= 0) entries = [...entries.slice(0, at), ...entries.slice(at + 1)];
  }
  if (!seen) return state;
  return { ...state, entries, seen };
}

/** The texts `abort` gave back, after what the composer holds, a blank line between each. */
export function joinBack(current: string, texts: readonly string[]): string {
  const parts = [current.trimEnd(), ...texts.map((text) => text.trim())].filter(Boolean);
  return parts.join('\n\n');
}
