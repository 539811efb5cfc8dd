// The compare view's model, pure: the entries of two branches below the node where they part,
// folded into turns (tool results into the answer that called them, model and thinking changes
// as markers on the next turn) and lined up row by row; and the plain text of a stored message,
// which the tree's preview and its Copy action share. Model output stays text: nothing here is
// ever parsed as markup.
import type { BranchComparison, BranchEntry, NodeKind } from '../ipc/wire';

/** Characters of text a compare cell shows, and a preview. */
export const CELL_CHARS = 400;
export const PREVIEW_CHARS = 600;
/** A tool call or result on one line. */
const LINE_CHARS = 120;

export const ROLE: Record<NodeKind, string> = {
  user: 'You',
  assistant: 'Assistant',
  tool_result: 'Tool result',
  model_change: 'Model change',
  thinking_level_change: 'Thinking change',
  compaction: 'Compaction',
  branch_summary: 'Branch summary',
  label: 'Label',
};

/** `text` trimmed to `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max - 1).trimEnd()}…` : trimmed;
}

/** The first non-empty line. */
export function firstLine(text: string): string {
  for (const line of text.split('\n')) {
    if (line.trim()) return line.trim();
  }
  return '';
}

/**
 * The plain text of an entry: the text parts of a user or assistant message or a tool result,
 * the summary of a compaction or branch summary; nothing for markers.
 */
export function entryText(entry: BranchEntry): string {
  if (entry.kind === 'compaction' || entry.kind === 'branch_summary') return entry.summary ?? '';
  const message = entry.message;
  if (!message) return '';
  switch (message.role) {
    case 'user':
    case 'tool_result':
      return message.content
        .flatMap((part) => (part.type === 'text' ? [part.text] : []))
        .join('\n');
    case 'assistant':
      return message.content
        .flatMap((part) => (part.type === 'text' ? [part.text] : []))
        .join('\n\n');
    default:
      return '';
  }
}

/** An assistant's tool calls as one-liners: `read(path: "src/main.rs")`. */
export function toolCalls(entry: BranchEntry): string[] {
  if (entry.message?.role !== 'assistant') return [];
  return entry.message.content.flatMap((part) => {
    if (part.type !== 'tool_call') return [];
    const args = Object.entries(part.arguments)
      .map(([key, value]) => `${key}: ${JSON.stringify(value) ?? 'null'}`)
      .join(', ');
    return [clip(`${part.name}(${args})`.replace(/\s+/g, ' '), LINE_CHARS)];
  });
}

/** The names of an assistant's tool calls. */
export function toolNames(entry: BranchEntry): string[] {
  if (entry.message?.role !== 'assistant') return [];
  return entry.message.content.flatMap((part) => (part.type === 'tool_call' ? [part.name] : []));
}

/** What the tree's preview shows of a node. */
export interface Preview {
  kind: string;
  label: string | null;
  text: string;
  tools: string[];
}

export function previewOf(entry: BranchEntry): Preview {
  return {
    kind: ROLE[entry.kind],
    label: entry.label,
    text: clip(entryText(entry), PREVIEW_CHARS),
    tools: toolNames(entry),
  };
}

/** One turn of a compared branch. */
export interface CompareTurn {
  nodeId: string;
  kind: NodeKind;
  role: string;
  /** Its text, cut to `CELL_CHARS`. */
  text: string;
  calls: string[];
  /** Tool results folded in, each to its first line. */
  results: { name: string; line: string; error: boolean }[];
  /** Model or thinking changes just before it. */
  markers: string[];
  aborted: boolean;
  label: string | null;
}

/** A row of the compare view: the i-th turn of each side (`null`: that side has fewer). */
export interface CompareRow {
  left: CompareTurn | null;
  right: CompareTurn | null;
}

function turnOf(entry: BranchEntry, markers: string[]): CompareTurn {
  return {
    nodeId: entry.node_id,
    kind: entry.kind,
    role: ROLE[entry.kind],
    text: clip(entryText(entry), CELL_CHARS),
    calls: toolCalls(entry),
    results: [],
    markers,
    aborted: entry.aborted,
    label: entry.label,
  };
}

/** Folds a branch's entries into turns. */
export function turnsOf(entries: readonly BranchEntry[]): CompareTurn[] {
  const turns: CompareTurn[] = [];
  let markers: string[] = [];
  for (const entry of entries) {
    switch (entry.kind) {
      case 'model_change':
      case 'thinking_level_change':
        markers.push(entry.kind === 'model_change' ? 'model changed' : 'thinking changed');
        break;
      case 'label':
        break;
      case 'tool_result': {
        const message = entry.message?.role === 'tool_result' ? entry.message : null;
        const result = {
          name: message?.tool_name ?? 'tool',
          line: clip(firstLine(entryText(entry)), LINE_CHARS),
          error: message?.is_error ?? false,
        };
        const last = turns.at(-1);
        // A branch starting at a tool result (it parts right after the call) shows it alone.
        if (last && last.kind === 'assistant' && markers.length === 0) last.results.push(result);
        else {
          turns.push({ ...turnOf(entry, markers), text: '', results: [result] });
          markers = [];
        }
        break;
      }
      default:
        turns.push(turnOf(entry, markers));
        markers = [];
    }
  }
  // Changes after the last turn stand alone.
  if (markers.length > 0) {
    const at = entries[entries.length - 1];
    turns.push({ ...turnOf(at, markers), role: 'Settings', text: '', calls: [] });
  }
  return turns;
}

/** Lines the turns of two branches up: row i holds each side's i-th turn. */
export function alignRows(left: CompareTurn[], right: CompareTurn[]): CompareRow[] {
  return Array.from({ length: Math.max(left.length, right.length) }, (_, i) => ({
    left: left[i] ?? null,
    right: right[i] ?? null,
  }));
}

export function compareRows(comparison: BranchComparison): CompareRow[] {
  return alignRows(turnsOf(comparison.left.entries), turnsOf(comparison.right.entries));
}
