// An MCP server's questions to the person in the middle of a tool call (elicitation, form
// mode): the queue of requests waiting, shown one at a time by the elicitation dialog, and the
// form's rules — the values it starts from (the server's defaults), its raw input turned into
// the content sent (numbers parsed, empty optional fields left out), and the checks Rust makes
// again (`arbor-mcp`'s `elicitation::check`), so the person sees a problem before sending.
// Pure (no Svelte, no IPC), unit-tested in elicitation.test.ts; elicitation.svelte.ts feeds it.
import type {
  ElicitationAction,
  ElicitationField,
  ElicitationOption,
  ElicitationRequest,
  JsonValue,
  SessionEvent,
} from '../ipc/wire';
import { visibleText } from './permissions';

export type ElicitationEvent = Extract<
  SessionEvent,
  { type: 'elicitation_requested' | 'elicitation_resolved' }
>;

export interface ElicitationState {
  /** The requests waiting, in the order they came: the first is shown. */
  queue: ElicitationRequest[];
}

export const EMPTY_ELICITATIONS: ElicitationState = { queue: [] };

/** The state after one event of the session's stream; other events leave it as it is. */
export function reduce(state: ElicitationState, event: SessionEvent): ElicitationState {
  switch (event.type) {
    case 'elicitation_requested':
      return enqueue(state, event.request);
    case 'elicitation_resolved':
      // Answered here, elsewhere (another front end), or cancelled by an abort.
      return removeRequest(state, event.request_id);
    default:
      return state;
  }
}

/** The state with `request` waiting last; one already queued is updated where it is. */
export function enqueue(state: ElicitationState, request: ElicitationRequest): ElicitationState {
  const at = state.queue.findIndex((item) => item.request_id === request.request_id);
  if (at < 0) return { queue: [...state.queue, request] };
  const queue = state.queue.slice();
  queue[at] = request;
  return { queue };
}

/** The state without the request `requestId` (answered, or resolved elsewhere). */
export function removeRequest(state: ElicitationState, requestId: string): ElicitationState {
  if (!state.queue.some((item) => item.request_id === requestId)) return state;
  return { queue: state.queue.filter((item) => item.request_id !== requestId) };
}

/**
 * The state with `requests` (those a session left waiting when the window showed another one)
 * back in front, in their order; requests that arrived since stay behind them, none twice.
 */
export function withRestored(
  state: ElicitationState,
  requests: ElicitationRequest[],
): ElicitationState {
  if (requests.length === 0) return state;
  const back = new Set(requests.map((request) => request.request_id));
  return { queue: [...requests, ...state.queue.filter((item) => !back.has(item.request_id))] };
}

/** The request the dialog shows. */
export function current(state: ElicitationState): ElicitationRequest | null {
  return state.queue[0] ?? null;
}

/** How many wait behind the one shown. */
export function waiting(state: ElicitationState): number {
  return Math.max(0, state.queue.length - 1);
}

/** What the person's answer did, in words (the window's live region). */
export function answeredText(action: ElicitationAction, server: string): string {
  switch (action) {
    case 'accept':
      return `Sent your answer to ${server}.`;
    case 'decline':
      return `Declined ${server}’s question.`;
    case 'cancel':
      return `Dismissed ${server}’s question.`;
  }
}

/** A question that left the queue without an answer from this window, in words. */
export function resolvedElsewhereText(action: ElicitationAction, server: string): string {
  switch (action) {
    case 'accept':
      return `${server}’s question was answered elsewhere.`;
    case 'decline':
      return `${server}’s question was declined elsewhere.`;
    case 'cancel':
      return `${server}’s question was withdrawn: answered elsewhere, or its call ended.`;
  }
}

/**
 * A field's value as its control holds it: the text typed (text, number, integer, and the
 * value of the option chosen — `''` for none), a checkbox's state, the values of the options
 * ticked (`choices`).
 */
export type FieldValue = string | boolean | string[];

/** What a number control holds when the browser could not read what was typed. */
export const BAD_NUMBER = 'not a number';

/** What the person reads as a field's name: its title, else its name. */
export function fieldLabel(field: ElicitationField): string {
  const title = field.title?.trim();
  return title ? title : field.name;
}

/** An option's label as a `<select>` shows it (plain text: hidden characters as markers). */
export function visibleOptionLabel(option: ElicitationOption): string {
  return visibleText(option.label);
}

/** The `<input type>` of a text field: the browser's own control for its format. */
export function inputType(field: ElicitationField): string {
  switch (field.kind) {
    case 'number':
    case 'integer':
      return 'number';
    case 'text':
      switch (field.format) {
        case 'email':
          return 'email';
        case 'uri':
          return 'url';
        case 'date':
          return 'date';
        case 'date-time':
          return 'datetime-local';
        default:
          return 'text';
      }
    default:
      return 'text';
  }
}

function pad(n: number, width = 2): string {
  return String(Math.trunc(Math.abs(n))).padStart(width, '0');
}

/** A `datetime-local` control's value: no zone, seconds optional. */
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/;

/**
 * A server's date-time (RFC 3339, `2026-11-28T10:30:00Z`) as a `datetime-local` control shows
 * it: the same instant in the person's time zone, `YYYY-MM-DDTHH:mm[:ss]`. A value already
 * without a zone stays as it is; one that is no date-time becomes `''` (the control could not
 * show it).
 */
export function localDateTime(text: string): string {
  if (LOCAL_DATE_TIME.test(text)) return text;
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]/.test(text) || Number.isNaN(at.getTime())) return '';
  const day = `${pad(at.getFullYear(), 4)}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  const seconds = at.getSeconds() === 0 ? '' : `:${pad(at.getSeconds())}`;
  return `${day}T${time}${seconds}`;
}

/** Minutes east of UTC of the person's time zone at a local time. */
export type OffsetOf = (local: Date) => number;

const localOffset: OffsetOf = (local) => -local.getTimezoneOffset();

/**
 * A `datetime-local` value as the RFC 3339 date-time servers expect: seconds added when
 * missing, and the person's zone (`2026-11-28T10:30:00+01:00`). Anything else stays as it is.
 */
export function zonedDateTime(local: string, offsetOf: OffsetOf = localOffset): string {
  const parts = LOCAL_DATE_TIME.exec(local);
  if (!parts) return local;
  const [, day, hours, minutes, seconds = '00', fraction = ''] = parts;
  const offset = offsetOf(new Date(`${day}T${hours}:${minutes}:${seconds}`));
  const zone =
    offset === 0
      ? 'Z'
      : `${offset < 0 ? '-' : '+'}${pad(Math.abs(offset) / 60)}:${pad(Math.abs(offset) % 60)}`;
  return `${day}T${hours}:${minutes}:${seconds}${fraction}${zone}`;
}

function has(object: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** A field's starting value: its entry in the request's `initial`, else its default. */
export function startValue(field: ElicitationField, initial: Record<string, unknown>): FieldValue {
  const start = has(initial, field.name) ? initial[field.name] : field.default;
  const known = (value: unknown): value is string =>
    typeof value === 'string' && field.options.some((option) => option.value === value);
  switch (field.kind) {
    case 'text':
      if (typeof start !== 'string') return '';
      return field.format === 'date-time' ? localDateTime(start) : start;
    case 'number':
    case 'integer':
      return typeof start === 'number' && Number.isFinite(start) ? String(start) : '';
    case 'boolean':
      return start === true;
    case 'choice':
      return known(start) ? start : '';
    case 'choices':
      return Array.isArray(start) ? start.filter(known) : [];
  }
}

/** The form's starting values, one per field in the request's order. */
export function startValues(request: ElicitationRequest): FieldValue[] {
  return request.fields.map((field) => startValue(field, request.initial));
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A number as typed (`12`, `-0.5`, `1e3`), or null (blank, `0x10`, `Infinity`, words). */
export function parseNumber(raw: string): number | null {
  const text = raw.trim();
  if (!DECIMAL.test(text)) return null;
  const number = Number(text);
  return Number.isFinite(number) ? number : null;
}

function digits(text: string): boolean {
  return /^\d+$/.test(text);
}

function isDate(text: string): boolean {
  const parts = text.split('-');
  return (
    parts.length === 3 &&
    parts[0].length === 4 &&
    parts[1].length === 2 &&
    parts[2].length === 2 &&
    parts.every(digits)
  );
}

/** Whether `text` has the shape of `format`, as Rust checks it (`looks_like`). */
export function looksLike(format: string, text: string): boolean {
  switch (format) {
    case 'email': {
      const at = text.indexOf('@');
      return at > 0 && text.slice(at + 1).includes('.');
    }
    case 'uri': {
      const colon = text.indexOf(':');
      if (colon < 0) return false;
      const scheme = text.slice(0, colon);
      return colon + 1 < text.length && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme);
    }
    case 'date':
      return isDate(text);
    case 'date-time': {
      const at = text.search(/[Tt]/);
      if (at < 0) return false;
      return isDate(text.slice(0, at)) && new TextEncoder().encode(text.slice(at + 1)).length >= 5;
    }
    default:
      return true;
  }
}

const FORMAT_PROBLEM: Record<string, string> = {
  email: 'Not an email address (name@example.com).',
  uri: 'Not an address with a scheme (https://example.com).',
  date: 'Not a date (YYYY-MM-DD).',
  'date-time': 'Not a date and time.',
};

/** The bound a value breaks, in words; null within them. */
function outside(field: ElicitationField, n: number, unit: (bound: number) => string) {
  if (field.minimum != null && n < field.minimum) return `At least ${unit(field.minimum)}.`;
  if (field.maximum != null && n > field.maximum) return `At most ${unit(field.maximum)}.`;
  return null;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * One field's value checked and read: `{ value }` to send, `{ value: undefined }` for an empty
 * optional field (left out), or `{ problem }` in words.
 */
export function readField(
  field: ElicitationField,
  raw: FieldValue,
  offsetOf: OffsetOf = localOffset,
): { value: JsonValue | undefined } | { problem: string } {
  const known = (value: string) => field.options.some((option) => option.value === value);
  // A blank text, number or choice: left out, unless the field is required.
  if (raw === '') return field.required ? { problem: 'Required.' } : { value: undefined };
  switch (field.kind) {
    case 'text': {
      const text = String(raw);
      const length = [...text].length;
      const bound = outside(field, length, (n) => plural(n, 'character', 'characters'));
      if (bound) return { problem: bound };
      if (field.format && !looksLike(field.format, text)) {
        return { problem: FORMAT_PROBLEM[field.format] ?? `Not a valid ${field.format}.` };
      }
      return { value: field.format === 'date-time' ? zonedDateTime(text, offsetOf) : text };
    }
    case 'number':
    case 'integer': {
      const number = parseNumber(String(raw));
      if (number === null) return { problem: 'Expected a number.' };
      if (field.kind === 'integer' && !Number.isSafeInteger(number)) {
        return { problem: 'Expected a whole number.' };
      }
      const bound = outside(field, number, String);
      return bound ? { problem: bound } : { value: number };
    }
    case 'boolean':
      return { value: raw === true };
    case 'choice':
      return typeof raw === 'string' && known(raw)
        ? { value: raw }
        : { problem: 'Not one of the options.' };
    case 'choices': {
      const chosen = Array.isArray(raw) ? raw : [];
      if (chosen.some((value) => !known(value))) return { problem: 'Not one of the options.' };
      if (chosen.length === 0 && !field.required) return { value: undefined };
      const bound = outside(field, chosen.length, (n) => plural(n, 'option', 'options'));
      return bound ? { problem: `Choose ${bound.toLowerCase()}` } : { value: [...chosen] };
    }
  }
}

/** Each field's problem in words (null when it is fine), in the fields' order. */
export function problems(fields: ElicitationField[], values: FieldValue[]): (string | null)[] {
  return fields.map((field, i) => {
    const read = readField(field, values[i] ?? startValue(field, {}));
    return 'problem' in read ? read.problem : null;
  });
}

/**
 * The form's answer: the content to send (typed values, empty optional fields left out), or
 * every field's problem when one does not fit.
 */
export function formAnswer(
  fields: ElicitationField[],
  values: FieldValue[],
  offsetOf: OffsetOf = localOffset,
): { content: Record<string, JsonValue> } | { problems: (string | null)[] } {
  const entries: [string, JsonValue][] = [];
  const found: (string | null)[] = [];
  for (const [i, field] of fields.entries()) {
    const read = readField(field, values[i] ?? startValue(field, {}), offsetOf);
    if ('problem' in read) {
      found.push(read.problem);
      continue;
    }
    found.push(null);
    if (read.value !== undefined) entries.push([field.name, read.value]);
  }
  if (found.some((problem) => problem !== null)) return { problems: found };
  // `fromEntries` defines own properties: a field named `__proto__` stays a key.
  return { content: Object.fromEntries(entries) };
}
