// The plan card's model, pure: in plan mode, the answer a run ended on is the plan; the card
// shows its first lines and offers to build it.
import type { ChatItem } from './chat';

/** What "Build" sends once plan mode is left. */
export const BUILD_PROMPT = 'Implement the plan.';

/** Lines of the plan the card shows before "Show all". */
export const PLAN_LINES = 12;

/** The plan: the last item when it is a finished answer with text (its key and its text). */
export function planAnswer(items: readonly ChatItem[]): { key: string; text: string } | null {
  const last = items[items.length - 1];
  if (last?.kind !== 'assistant' || last.status !== 'done') return null;
  const text = last.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n\n')
    .trim();
  return text ? { key: last.key, text } : null;
}

/** The plan's first `max` lines, and how many more there are. */
export function planLines(text: string, max = PLAN_LINES): { text: string; more: number } {
  const lines = text.split('\n');
  if (lines.length <= max) return { text, more: 0 };
  return { text: lines.slice(0, max).join('\n'), more: lines.length - max };
}
