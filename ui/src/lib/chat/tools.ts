// What a tool card shows, worked out from the call's arguments and the result's `details`
// (shapes documented in src-tauri/crates/coding/src/tools/). Pure, so it is unit-tested.
import type { ImageContent, JsonValue, ToolResult } from '../../ipc/wire';
import { parseTodos } from '../../state/todos';
import { IMAGE_TYPES } from './images';

type Args = Record<string, JsonValue>;

function field(value: JsonValue | undefined, name: string): JsonValue | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value[name];
  return undefined;
}

function str(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: JsonValue | undefined): number | null {
  return typeof value === 'number' ? value : null;
}

/** One line under the tool's name: the path and range of a read, what a write did… */
export function toolSummary(name: string, args: Args, result: ToolResult | null): string {
  const details = result?.details ?? undefined;
  const path = str(field(details ?? undefined, 'path')) ?? str(args.path) ?? '';
  switch (name) {
    case 'read': {
      const start = num(field(details, 'start_line'));
      const end = num(field(details, 'end_line'));
      const total = num(field(details, 'total_lines'));
      if (start !== null && end !== null && total !== null) {
        return `${path} · lines ${start}–${end} of ${total}`;
      }
      return path;
    }
    case 'write': {
      const created = field(details, 'created');
      const bytes = num(field(details, 'bytes'));
      if (typeof created === 'boolean') {
        const size = bytes === null ? '' : ` · ${bytes.toLocaleString()} bytes`;
        return `${path} · ${created ? 'created' : 'overwritten'}${size}`;
      }
      return path;
    }
    case 'edit': {
      const count = num(field(details, 'replacements'));
      return count === null ? path : `${path} · ${count} change${count === 1 ? '' : 's'}`;
    }
    case 'bash':
      return str(args.command)?.split('\n')[0] ?? '';
    case 'todo': {
      const todos = parseTodos(args);
      if (todos === null) return '';
      if (todos.length === 0) return 'no tasks';
      return `${todos.filter((todo) => todo.status === 'done').length}/${todos.length} done`;
    }
    default:
      return path;
  }
}

/** A result as its card shows it: the text parts, and the images it can show. */
export interface ResultParts {
  text: string;
  images: ImageContent[];
}

// Base64 only: the data goes into a `data:` URL.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Splits what the model read back into text and images. Images of a type the webview is not
 * trusted with (not PNG, JPEG, GIF or WebP) or not in base64 stay a note in the text. */
export function resultParts(result: ToolResult | null): ResultParts {
  if (!result) return { text: '', images: [] };
  const lines: string[] = [];
  const images: ImageContent[] = [];
  for (const part of result.content) {
    if (part.type === 'text') lines.push(part.text);
    else if (IMAGE_TYPES.includes(part.mime_type) && part.data && BASE64.test(part.data)) {
      images.push({ data: part.data, mime_type: part.mime_type });
    } else lines.push(`[image ${part.mime_type}, not shown]`);
  }
  return { text: lines.join('\n'), images };
}

/** The text the model read back, as the card shows it (images apart: `resultParts`). */
export function resultText(result: ToolResult | null): string {
  return resultParts(result).text;
}

/** The edit's unified diff, when the result has one. */
export function editDiff(result: ToolResult | null): string | null {
  return str(field(result?.details ?? undefined, 'diff'));
}

/** A call's arguments as `name: value` lines (strings as they are, the rest as JSON). */
export function argumentText(args: Args): string {
  return Object.entries(args)
    .map(([name, value]) => {
      const shown = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
      return `${name}: ${shown}`;
    })
    .join('\n');
}

export interface Folded {
  text: string;
  hiddenLines: number;
}

/** The first `max` lines (or the last, `fromEnd`), and how many were left out. */
export function foldLines(text: string, max: number, fromEnd = false): Folded {
  const lines = text.split('\n');
  if (lines.length <= max) return { text, hiddenLines: 0 };
  const kept = fromEnd ? lines.slice(lines.length - max) : lines.slice(0, max);
  return { text: kept.join('\n'), hiddenLines: lines.length - max };
}
