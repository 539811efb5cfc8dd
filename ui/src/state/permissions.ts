// A project's permissions as the window shows them: its `PermissionsView` (the header's mode,
// the trust banner, the settings' rules) and the tool calls waiting for the user's yes, shown
// one at a time by the permission dialog. Pure (no Svelte, no IPC), so every rule is
// unit-tested (permissions.test.ts); permissions.svelte.ts feeds it.
import type {
  PermissionDecision,
  PermissionMode,
  PermissionRequest,
  PermissionsView,
  RuleEffect,
  RuleSource,
  SandboxBackend,
  SessionEvent,
} from '../ipc/wire';

export type PermissionEvent = Extract<
  SessionEvent,
  { type: 'permission_requested' | 'permission_resolved' | 'permission_mode_changed' }
>;

export interface PermissionState {
  /** `null` until `get_permissions` answers. */
  view: PermissionsView | null;
  /** The requests waiting, in the order they came: the first is shown. */
  queue: PermissionRequest[];
}

export const EMPTY_PERMISSIONS: PermissionState = { view: null, queue: [] };

/** The state after one event of the session's stream; other events leave it as it is. */
export function reduce(state: PermissionState, event: SessionEvent): PermissionState {
  switch (event.type) {
    case 'permission_requested':
      return enqueue(state, event.request);
    case 'permission_resolved':
      // Answered here, elsewhere (another front end), or denied by an abort.
      return removeRequest(state, event.request_id);
    case 'permission_mode_changed':
      return state.view && state.view.mode !== event.mode
        ? { ...state, view: { ...state.view, mode: event.mode } }
        : state;
    default:
      return state;
  }
}

/** The state with `request` waiting last; one already queued is updated where it is. */
export function enqueue(state: PermissionState, request: PermissionRequest): PermissionState {
  const at = state.queue.findIndex((item) => item.request_id === request.request_id);
  if (at < 0) return { ...state, queue: [...state.queue, request] };
  const queue = state.queue.slice();
  queue[at] = request;
  return { ...state, queue };
}

/** The state without the request `requestId` (answered, or resolved elsewhere). */
export function removeRequest(state: PermissionState, requestId: string): PermissionState {
  if (!state.queue.some((item) => item.request_id === requestId)) return state;
  return { ...state, queue: state.queue.filter((item) => item.request_id !== requestId) };
}

/**
 * The state with `requests` (those a session left waiting when the window showed another one)
 * back in front, in their order; requests that arrived since stay behind them, none twice.
 */
export function withRestored(
  state: PermissionState,
  requests: PermissionRequest[],
): PermissionState {
  if (requests.length === 0) return state;
  const back = new Set(requests.map((request) => request.request_id));
  return {
    ...state,
    queue: [...requests, ...state.queue.filter((item) => !back.has(item.request_id))],
  };
}

/** The state with the view Rust answered (every permission command answers the whole view). */
export function withView(state: PermissionState, view: PermissionsView): PermissionState {
  return { ...state, view };
}

/** The request the dialog shows. */
export function current(state: PermissionState): PermissionRequest | null {
  return state.queue[0] ?? null;
}

/** How many wait behind the one shown. */
export function waiting(state: PermissionState): number {
  return Math.max(0, state.queue.length - 1);
}

/** A mode as the header's menu shows it. */
export interface ModeInfo {
  mode: PermissionMode;
  label: string;
  /** What it lets the model do, in one line. */
  description: string;
  /** Commands run without a sandbox: shown in the warning colour. */
  warning: boolean;
}

export const MODES: readonly ModeInfo[] = [
  {
    mode: 'read-only',
    label: 'Read-only',
    description: 'Reads and searches; commands ask and run without writes or network.',
    warning: false,
  },
  {
    mode: 'workspace',
    label: 'Workspace',
    description: 'Edits the project; commands run sandboxed without network.',
    warning: false,
  },
  {
    mode: 'full',
    label: 'Full access',
    description: 'No limits but deny rules; commands are not sandboxed.',
    warning: true,
  },
];

export function modeInfo(mode: PermissionMode): ModeInfo {
  return MODES.find((info) => info.mode === mode) ?? MODES[1];
}

export const EFFECT_LABEL: Record<RuleEffect, string> = {
  deny: 'deny',
  ask: 'ask',
  allow: 'allow',
};

/** Where a rule comes from, in words. */
export const SOURCE_LABEL: Record<RuleSource, string> = {
  user: 'your settings',
  project: 'this project',
  session: 'this session',
  command_line: 'command line',
  project_file: "the project's .arbor/permissions.json",
};

/** Rules the settings can remove: the user's and the project's (saved ones). */
export function removable(source: RuleSource): boolean {
  return source === 'user' || source === 'project';
}

export const BACKEND_LABEL: Record<SandboxBackend, string> = {
  bubblewrap: 'bubblewrap',
  landlock: 'Landlock',
  seatbelt: 'Seatbelt',
  none: 'no sandbox',
};

/** What the user's answer did, in words (the window's live region). */
export function decisionText(decision: PermissionDecision, toolName: string): string {
  switch (decision) {
    case 'allow_once':
      return `Allowed ${toolName} once.`;
    case 'allow_session':
      return `Allowed ${toolName} for this session.`;
    case 'allow_always':
      return `Allowed ${toolName} always; the rule is saved for this project.`;
    case 'deny':
      return `Denied ${toolName}.`;
  }
}

/** A request that left the queue without an answer from this window, in words. */
export function resolvedElsewhereText(decision: PermissionDecision, toolName: string): string {
  return decision === 'deny'
    ? `The request of ${toolName} was denied elsewhere, or its run stopped.`
    : `The request of ${toolName} was allowed elsewhere.`;
}

/**
 * A rule typed in the settings, checked before it is sent: `Tool` or `Tool(specifier)`, with
 * the parentheses balanced. Rust checks it again (`invalid_rule`).
 */
export function checkRule(text: string): { rule: string } | { error: string } {
  const rule = text.trim();
  if (rule === '') return { error: 'Type a rule, e.g. Bash(cargo test *) or Edit(src/**).' };
  if (!/^[A-Za-z_][\w-]*(\(.*\))?$/s.test(rule)) {
    return { error: 'A rule is a tool’s name, optionally with what it matches: Bash(git push *).' };
  }
  return { rule };
}

/** The secret paths' textarea (one path per line) as a list: trimmed, no blanks, no repeats. */
export function parsePaths(text: string): string[] {
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    const path = line.trim();
    if (path !== '') seen.add(path);
  }
  return [...seen];
}

/**
 * Characters that could hide what a command does, as code point ranges: C0 and C1 controls
 * (newline and tab stay), DEL, bidirectional overrides, embeddings and isolates (U+202A–U+202E,
 * U+2066–U+2069, the marks U+200E, U+200F, U+061C), zero-width and other invisible characters
 * (U+200B–U+200D, U+2060–U+2064, U+FEFF, the soft hyphen, fillers, U+2028/U+2029), variation
 * selectors and tag characters (both can smuggle text no one sees), interlinear annotations.
 */
const HIDDEN: readonly (readonly [number, number])[] = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];

/** Whether the character (one code point) is one `visibleText` writes as a marker. */
export function isHidden(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return HIDDEN.some(([from, to]) => code >= from && code <= to);
}

/** One run of text as the dialog shows it: as written, or a hidden character's marker. */
export interface VisiblePart {
  text: string;
  /** A marker (`\u{202E}`) standing for a character that would not show as itself. */
  escaped: boolean;
}

/** A character's marker: its code point in hex, `\u{1B}`, `\u{202E}`. */
export function marker(char: string): string {
  return `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`;
}

/**
 * `text` cut into runs shown as written and markers for the characters that would hide or
 * reorder what it says (so the dialog can show the markers apart from text that merely looks
 * like one).
 */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let plain = '';
  // By code point: a tag character is a surrogate pair.
  for (const char of text) {
    if (isHidden(char)) {
      if (plain !== '') parts.push({ text: plain, escaped: false });
      plain = '';
      parts.push({ text: marker(char), escaped: true });
    } else {
      plain += char;
    }
  }
  if (plain !== '') parts.push({ text: plain, escaped: false });
  return parts;
}

/**
 * `text` with every control, bidirectional and invisible character written as a visible
 * `\u{…}` marker (newline and tab stay): what is shown is what runs.
 */
export function visibleText(text: string): string {
  return visibleParts(text)
    .map((part) => part.text)
    .join('');
}

/** Whether `text` holds a character `visibleText` escapes (the dialog then warns). */
export function hasHidden(text: string): boolean {
  for (const char of text) if (isHidden(char)) return true;
  return false;
}
