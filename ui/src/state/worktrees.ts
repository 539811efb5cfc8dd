// A project window's worktrees and the activity of its sessions, as the sidebar and the review
// pane show them: the project's worktrees, what each live session of the window is doing
// (running, waiting for the user, done, failed — reported over `watch_sessions`, keyed by
// session id), which session the window shows and in which worktree, the badges (sessions
// waiting for the user that are not shown), and the review pane's state (the review, the action
// in flight, the last commit, merge and push, the files of the shown branch's last turn). Pure (no Svelte, no IPC), so every rule is
// unit-tested (worktrees.test.ts); worktrees.svelte.ts feeds it.
import type {
  ActivityState,
  ArchivePreview,
  CommitResult,
  ErrorCode,
  MergeOutcome,
  NodeDiff,
  PushResult,
  SessionActivity,
  SessionListItem,
  SetupOutcome,
  WorktreeReview,
  WorktreeView,
} from '../ipc/wire';
import type { ChatModel } from './chat';

/** What the review pane is doing: reading the review, or one of its actions. */
export type ReviewAction = 'load' | 'discard' | 'commit' | 'merge' | 'push';

/** A failed review action, as the pane shows it. */
export interface ReviewError {
  action: ReviewAction;
  code: ErrorCode | 'unknown';
  message: string;
}

export interface ReviewState {
  /** The worktree reviewed (`null`: the pane is closed). */
  name: string | null;
  /** `null` until `review_worktree` answers. */
  review: WorktreeReview | null;
  /** The action in flight: the pane's buttons wait. */
  busy: ReviewAction | null;
  error: ReviewError | null;
  /** The last results, until the pane reviews another worktree. */
  commit: CommitResult | null;
  merge: MergeOutcome | null;
  push: PushResult | null;
}

/** The session the window shows. */
export interface Shown {
  /** `null`: a new chat, not stored yet (or nothing opened yet). */
  sessionId: string | null;
  /** The worktree it works in, when the window knows it from opening it (`null`: look it up). */
  worktree: string | null;
  /** A new chat this window opened: when its id comes, it keeps `worktree`. */
  fresh: boolean;
}

/** The shown branch's last turn: from its last stored user message to its leaf. */
export interface LastTurnNodes {
  sessionId: string | null;
  /** The last stored user message (its files are the turn's start). */
  from: string;
  /** The branch's leaf. */
  to: string;
}

/** The review pane's "Last turn": the files the shown branch's last turn changed. */
export interface LastTurnState {
  nodes: LastTurnNodes;
  /** `null` until `diff_nodes` answers (or when it failed). */
  diff: NodeDiff | null;
  error: { code: ErrorCode | 'unknown'; message: string } | null;
}

export interface WorktreesState {
  /** `null` until `list_worktrees` answers. */
  worktrees: WorktreeView[] | null;
  /** Each live session's last reported activity, by session id. */
  activity: ReadonlyMap<string, SessionActivity>;
  /** Stored sessions' worktrees, as the sidebar's list said (`null`: the project's folder). */
  sessionWorktrees: ReadonlyMap<string, string | null>;
  shown: Shown;
  review: ReviewState;
  /** `null`: no stored user message on the shown branch, or the review pane is closed. */
  lastTurn: LastTurnState | null;
}

export const EMPTY_REVIEW: ReviewState = {
  name: null,
  review: null,
  busy: null,
  error: null,
  commit: null,
  merge: null,
  push: null,
};

export const EMPTY_WORKTREES: WorktreesState = {
  worktrees: null,
  activity: new Map(),
  sessionWorktrees: new Map(),
  shown: { sessionId: null, worktree: null, fresh: false },
  review: EMPTY_REVIEW,
  lastTurn: null,
};

export type WorktreesAction =
  /** `list_worktrees` answered. */
  | { type: 'listed'; worktrees: WorktreeView[] }
  /** One worktree answered by itself (made, archived, restored): replaced by name, or added. */
  | { type: 'worktree'; worktree: WorktreeView }
  /** A session's activity changed (`watch_sessions`). */
  | { type: 'activity'; activity: SessionActivity }
  /** `background_sessions` answered. */
  | { type: 'background'; sessions: SessionActivity[] }
  /** The sidebar read the stored sessions. */
  | { type: 'sessions'; sessions: SessionListItem[] }
  /** The window opened a session (`null`: a new chat) in a known worktree (`null`: none). */
  | { type: 'opened'; sessionId: string | null; worktree: string | null }
  /** The chat shows `sessionId` (a new chat was stored, another session was switched to). */
  | { type: 'shown'; sessionId: string | null }
  /** The review pane opens on (or reads again) the worktree `name`. */
  | { type: 'review_start'; name: string; action: ReviewAction }
  /** A review answered (reading it, or a discard). */
  | { type: 'reviewed'; review: WorktreeReview }
  | { type: 'review_failed'; name: string; error: ReviewError }
  | { type: 'committed'; name: string; result: CommitResult }
  | { type: 'merged'; name: string; outcome: MergeOutcome }
  | { type: 'pushed'; name: string; result: PushResult }
  /** The review pane reads the last turn of `nodes` (`null`: there is none). */
  | { type: 'last_turn_start'; nodes: LastTurnNodes | null }
  | { type: 'last_turn'; nodes: LastTurnNodes; diff: NodeDiff }
  | { type: 'last_turn_failed'; nodes: LastTurnNodes; error: LastTurnState['error'] }
  /** The review pane closed. */
  | { type: 'review_closed' };

export function reduce(state: WorktreesState, action: WorktreesAction): WorktreesState {
  switch (action.type) {
    case 'listed':
      return { ...state, worktrees: action.worktrees };
    case 'worktree':
      return { ...state, worktrees: withWorktree(state.worktrees ?? [], action.worktree) };
    case 'activity':
      return withActivity(state, [action.activity]);
    case 'background':
      return withActivity(state, action.sessions);
    case 'sessions': {
      const sessionWorktrees = new Map(state.sessionWorktrees);
      for (const item of action.sessions) sessionWorktrees.set(item.id, item.worktree ?? null);
      return { ...state, sessionWorktrees };
    }
    case 'opened':
      return {
        ...state,
        shown: {
          sessionId: action.sessionId,
          worktree: action.worktree,
          fresh: action.sessionId === null,
        },
      };
    case 'shown': {
      const shown = shownAs(state.shown, action.sessionId);
      return shown === state.shown ? state : { ...state, shown };
    }
    case 'review_start': {
      // Another worktree: its own review, and none of the other's results.
      const base = state.review.name === action.name ? state.review : EMPTY_REVIEW;
      return { ...state, review: { ...base, name: action.name, busy: action.action, error: null } };
    }
    case 'reviewed':
      if (state.review.name !== action.review.name) return state;
      return { ...state, review: { ...state.review, review: action.review, busy: null } };
    case 'review_failed':
      if (state.review.name !== action.name) return state;
      return { ...state, review: { ...state.review, busy: null, error: action.error } };
    case 'committed':
      if (state.review.name !== action.name) return state;
      return { ...state, review: { ...state.review, busy: null, commit: action.result } };
    case 'merged':
      if (state.review.name !== action.name) return state;
      return { ...state, review: { ...state.review, busy: null, merge: action.outcome } };
    case 'pushed':
      if (state.review.name !== action.name) return state;
      return { ...state, review: { ...state.review, busy: null, push: action.result } };
    case 'last_turn_start':
      return {
        ...state,
        lastTurn: action.nodes && { nodes: action.nodes, diff: null, error: null },
      };
    case 'last_turn':
      // Only the answer for the turn shown now (a later turn may have been asked for since).
      if (!state.lastTurn || !sameTurn(state.lastTurn.nodes, action.nodes)) return state;
      return { ...state, lastTurn: { ...state.lastTurn, diff: action.diff, error: null } };
    case 'last_turn_failed':
      if (!state.lastTurn || !sameTurn(state.lastTurn.nodes, action.nodes)) return state;
      return { ...state, lastTurn: { ...state.lastTurn, diff: null, error: action.error } };
    case 'review_closed':
      return { ...state, review: EMPTY_REVIEW, lastTurn: null };
  }
}

/** Whether two last turns are the same (same session, same nodes). */
export function sameTurn(a: LastTurnNodes, b: LastTurnNodes): boolean {
  return a.sessionId === b.sessionId && a.from === b.from && a.to === b.to;
}

/**
 * The last turn of the branch a chat shows: from its last stored user message to its leaf
 * (`null` while no user message is stored).
 */
export function lastTurnOf(
  model: Pick<ChatModel, 'sessionId' | 'items' | 'leafId'> | null,
): LastTurnNodes | null {
  if (!model) return null;
  for (let at = model.items.length - 1; at >= 0; at--) {
    const item = model.items[at];
    if (item.kind === 'user' && item.nodeId !== null) {
      return { sessionId: model.sessionId, from: item.nodeId, to: model.leafId ?? item.nodeId };
    }
  }
  return null;
}

/** `list` with `worktree` in place of the one of its name, or added last. */
function withWorktree(list: WorktreeView[], worktree: WorktreeView): WorktreeView[] {
  const at = list.findIndex((item) => item.name === worktree.name);
  if (at < 0) return [...list, worktree];
  const next = list.slice();
  next[at] = worktree;
  return next;
}

function withActivity(state: WorktreesState, reports: SessionActivity[]): WorktreesState {
  // A session reports no id until its first message is stored: nothing to key it by yet.
  const known = reports.filter((report) => report.session_id);
  if (known.length === 0) return state;
  const activity = new Map(state.activity);
  for (const report of known) activity.set(report.session_id as string, report);
  return { ...state, activity };
}

function shownAs(shown: Shown, sessionId: string | null): Shown {
  if (sessionId === shown.sessionId) return shown;
  // A new chat this window opened in a worktree was stored: it is still in that worktree.
  if (shown.fresh && shown.sessionId === null && sessionId !== null) {
    return { sessionId, worktree: shown.worktree, fresh: false };
  }
  return { sessionId, worktree: null, fresh: sessionId === null };
}

/** The worktree a stored session works in, as far as the window knows (`null`: none). */
export function worktreeOf(state: WorktreesState, sessionId: string): string | null {
  return state.sessionWorktrees.get(sessionId) ?? state.activity.get(sessionId)?.worktree ?? null;
}

/** The worktree the shown session works in (`null`: the project's own folder). */
export function shownWorktree(state: WorktreesState): string | null {
  const { sessionId, worktree } = state.shown;
  if (worktree !== null) return worktree;
  return sessionId === null ? null : worktreeOf(state, sessionId);
}

/** What a session is doing, for the sidebar (`idle` when nothing was reported). */
export function activityOf(state: WorktreesState, sessionId: string): ActivityState {
  return state.activity.get(sessionId)?.state ?? 'idle';
}

/** Whether a session waits for the user's answer and is not the one shown: its badge. */
export function badged(state: WorktreesState, sessionId: string): boolean {
  return activityOf(state, sessionId) === 'waiting' && state.shown.sessionId !== sessionId;
}

/** The sessions with a badge. */
export function badges(state: WorktreesState): string[] {
  return [...state.activity.keys()].filter((id) => badged(state, id));
}

/**
 * Whether a session lives on in the window's background (running or waiting, not shown): it
 * must be opened with `open_session` to be shown again with its live stream.
 */
export function inBackground(state: WorktreesState, sessionId: string): boolean {
  const now = activityOf(state, sessionId);
  return state.shown.sessionId !== sessionId && (now === 'running' || now === 'waiting');
}

/** Active worktrees first (newest first), then archived ones. */
export function orderedWorktrees(list: readonly WorktreeView[]): WorktreeView[] {
  return list
    .slice()
    .sort(
      (a, b) =>
        Number(a.state === 'archived') - Number(b.state === 'archived') ||
        b.created_at - a.created_at,
    );
}

/** Bytes as people read them: 512 B, 1.5 MB, 2.3 GB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A commit id as people read it. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 7);
}

/** What archiving keeps of the files not committed, in words (the list of them follows). */
export function archiveKept(preview: ArchivePreview): string {
  const files = preview.uncommitted.length;
  if (files === 0) return 'No file is uncommitted.';
  return `${files === 1 ? '1 uncommitted file is' : `${files} uncommitted files are`} kept in a snapshot and come back on restore:`;
}

/** The rest of the archive preview: ignored files and unmerged commits, in words. */
export function archiveNotes(preview: ArchivePreview): string[] {
  const notes: string[] = [];
  if (preview.ignored_bytes > 0) {
    notes.push(
      `${formatBytes(preview.ignored_bytes)} of ignored files (build output, dependencies) are not kept; the setup command makes them again.`,
    );
  }
  if (preview.unmerged_commits > 0) {
    notes.push(
      `${preview.unmerged_commits === 1 ? '1 commit is' : `${preview.unmerged_commits} commits are`} not merged: ${preview.unmerged_commits === 1 ? 'it stays' : 'they stay'} on the branch.`,
    );
  }
  return notes;
}

/** One line of a hunk, as the review shows it. */
export interface HunkLine {
  kind: 'add' | 'del' | 'context' | 'note';
  /** The line without its first character (`+`, `-`, ` `); a note (`\ No newline…`) whole. */
  text: string;
}

/** A hunk's `lines` (each starting with ' ', '+', '-' or '\') as lines to show. */
export function hunkLines(lines: string): HunkLine[] {
  const rows = lines.split('\n');
  if (rows.at(-1) === '') rows.pop();
  return rows.map((raw) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    switch (line[0]) {
      case '+':
        return { kind: 'add', text: line.slice(1) };
      case '-':
        return { kind: 'del', text: line.slice(1) };
      case '\\':
        return { kind: 'note', text: line };
      case ' ':
        return { kind: 'context', text: line.slice(1) };
      default:
        return { kind: 'context', text: line };
    }
  });
}

/** A file status in words. */
export const STATUS_LABEL: Record<string, string> = {
  added: 'added',
  deleted: 'deleted',
  modified: 'modified',
  renamed: 'renamed',
  mode_changed: 'mode changed',
};

/** Whether "Commit" can be pressed: a message, and something to commit. */
export function canCommit(review: WorktreeReview | null, message: string): boolean {
  return review !== null && review.uncommitted.length > 0 && message.trim() !== '';
}

/** A commit's result, in words. */
export function commitText(result: CommitResult): string {
  const files = result.files === 1 ? '1 file' : `${result.files} files`;
  return `Committed ${files} on ${result.branch} (${shortCommit(result.commit)}).`;
}

/** A merge's result, in words (a conflict's files are listed apart). */
export function mergeText(outcome: MergeOutcome, branch: string, base: string): string {
  switch (outcome.outcome) {
    case 'fast_forward':
      return `${base} moved forward to ${branch} (${shortCommit(outcome.commit)}).`;
    case 'merged':
      return `${branch} was merged into ${base} (${shortCommit(outcome.commit)}).`;
    case 'up_to_date':
      return `${base} already has everything on ${branch}: nothing to merge.`;
    case 'conflict':
      return `Merging ${branch} into ${base} would conflict in ${outcome.files.length === 1 ? '1 file' : `${outcome.files.length} files`}. Nothing was changed.`;
  }
}

/** A push's result, in words. */
export function pushText(result: PushResult): string {
  return `Pushed ${result.branch} (${shortCommit(result.commit)}) to ${result.url}.`;
}

/** Whether a setup run failed (a non-zero exit, killed, or timed out). */
export function setupFailed(outcome: SetupOutcome): boolean {
  return outcome.timed_out || outcome.exit_code !== 0;
}

/** How a setup run ended, in words. */
export function setupText(outcome: SetupOutcome): string {
  if (outcome.timed_out) return 'The setup command timed out and was stopped.';
  if (outcome.exit_code === null || outcome.exit_code === undefined) {
    return 'The setup command was stopped by a signal.';
  }
  if (outcome.exit_code !== 0)
    return `The setup command failed with exit code ${outcome.exit_code}.`;
  return 'The setup command finished.';
}

/** Lines of setup output kept on screen (the oldest go first). */
export const MAX_LOG_LINES = 2000;

/** Terminal colour and cursor sequences: a log shows text, not a terminal's escapes. */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** The log with `line` added (its escape sequences taken out), at most `MAX_LOG_LINES` long. */
export function appendLog(log: readonly string[], line: string): string[] {
  const text = line.replace(ANSI, '').replace(/\r?\n$/, '');
  const next = [...log, text];
  return next.length > MAX_LOG_LINES ? next.slice(next.length - MAX_LOG_LINES) : next;
}
