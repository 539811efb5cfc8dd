import { describe, expect, it } from 'vitest';
import type { NodeDiff, SessionActivity } from '../ipc/wire';
import type { ChatItem } from './chat';
import { REVIEW, sessionItem, WORKTREE } from '../test-ipc';
import {
  activityOf,
  appendLog,
  archiveKept,
  archiveNotes,
  badged,
  badges,
  canCommit,
  commitText,
  EMPTY_WORKTREES,
  formatBytes,
  hunkLines,
  inBackground,
  lastTurnOf,
  MAX_LOG_LINES,
  mergeText,
  orderedWorktrees,
  pushText,
  reduce,
  setupFailed,
  setupText,
  shownWorktree,
  worktreeOf,
  type WorktreesAction,
  type WorktreesState,
} from './worktrees';

function play(state: WorktreesState, ...actions: WorktreesAction[]): WorktreesState {
  return actions.reduce(reduce, state);
}

function activity(
  sessionId: string | null,
  state: SessionActivity['state'],
  worktree: string | null = null,
  shown = false,
): WorktreesAction {
  return { type: 'activity', activity: { session_id: sessionId, state, worktree, shown } };
}

describe('sessions’ activity', () => {
  it('keeps each session’s last state by id, idle when nothing was reported', () => {
    const state = play(
      EMPTY_WORKTREES,
      activity('s1', 'running'),
      activity('s2', 'running', 'fix-parser'),
      activity('s1', 'done'),
      // Not stored yet: nothing to key it by.
      activity(null, 'running'),
    );
    expect(activityOf(state, 's1')).toBe('done');
    expect(activityOf(state, 's2')).toBe('running');
    expect(activityOf(state, 's3')).toBe('idle');
    expect(state.activity.size).toBe(2);
    expect(worktreeOf(state, 's2')).toBe('fix-parser');
  });

  it('badges the sessions that wait for an answer and are not shown', () => {
    let state = play(
      EMPTY_WORKTREES,
      { type: 'opened', sessionId: 's1', worktree: null },
      activity('s1', 'waiting', null, true),
      activity('s2', 'waiting', 'fix-parser'),
      activity('s3', 'running'),
    );
    expect(badged(state, 's1')).toBe(false);
    expect(badged(state, 's2')).toBe(true);
    expect(badged(state, 's3')).toBe(false);
    expect(badges(state)).toEqual(['s2']);
    // Answered (running again): the badge goes.
    state = play(state, activity('s2', 'running', 'fix-parser'));
    expect(badges(state)).toEqual([]);
    // Shown: no badge, the dialog asks instead.
    state = play(state, activity('s2', 'waiting', 'fix-parser'), {
      type: 'shown',
      sessionId: 's2',
    });
    expect(badged(state, 's2')).toBe(false);
    expect(badged(state, 's1')).toBe(true);
  });

  it('takes the sessions running in the background as reported', () => {
    const state = play(EMPTY_WORKTREES, {
      type: 'background',
      sessions: [
        { session_id: 'b1', state: 'running', worktree: 'a', shown: false },
        { session_id: 'b2', state: 'waiting', worktree: null, shown: false },
      ],
    });
    expect(inBackground(state, 'b1')).toBe(true);
    expect(inBackground(state, 'b2')).toBe(true);
    expect(badges(state)).toEqual(['b2']);
    const done = play(state, activity('b1', 'done', 'a'));
    expect(inBackground(done, 'b1')).toBe(false);
    expect(inBackground(play(state, { type: 'shown', sessionId: 'b1' }), 'b1')).toBe(false);
  });
});

describe('the shown session’s worktree', () => {
  it('is the one it was opened in, kept when a new chat is stored', () => {
    let state = play(EMPTY_WORKTREES, { type: 'opened', sessionId: null, worktree: 'fix-parser' });
    expect(shownWorktree(state)).toBe('fix-parser');
    state = play(state, { type: 'shown', sessionId: null });
    expect(shownWorktree(state)).toBe('fix-parser');
    // Its first message is stored: it has an id, in the same worktree.
    state = play(state, { type: 'shown', sessionId: 's9' });
    expect(state.shown).toEqual({ sessionId: 's9', worktree: 'fix-parser', fresh: false });
    // Another session shown by the old path: its own worktree, from the list.
    state = play(
      state,
      {
        type: 'sessions',
        sessions: [
          { ...sessionItem({ id: 's1', title: '', updated_at: 0, message_count: 0, cost: 0 }) },
          {
            ...sessionItem({ id: 's2', title: '', updated_at: 0, message_count: 0, cost: 0 }),
            worktree: 'other',
          },
        ],
      },
      { type: 'shown', sessionId: 's1' },
    );
    expect(shownWorktree(state)).toBeNull();
    state = play(state, { type: 'shown', sessionId: 's2' });
    expect(shownWorktree(state)).toBe('other');
    expect(worktreeOf(state, 's1')).toBeNull();
  });

  it('leaves the state as it is when the same session is shown again', () => {
    const state = play(EMPTY_WORKTREES, { type: 'opened', sessionId: 's1', worktree: 'x' });
    expect(reduce(state, { type: 'shown', sessionId: 's1' })).toBe(state);
  });
});

describe('the worktree list', () => {
  it('replaces a worktree answered alone by name, or adds it', () => {
    const archived = { ...WORKTREE, state: 'archived' as const, uncommitted: 0 };
    let state = play(EMPTY_WORKTREES, { type: 'listed', worktrees: [WORKTREE] });
    state = play(state, { type: 'worktree', worktree: archived });
    expect(state.worktrees).toEqual([archived]);
    state = play(state, { type: 'worktree', worktree: { ...WORKTREE, name: 'b' } });
    expect(state.worktrees?.map((w) => w.name)).toEqual(['fix-parser', 'b']);
  });

  it('lists active worktrees first, newest first', () => {
    const list = [
      { ...WORKTREE, name: 'old', created_at: 1 },
      { ...WORKTREE, name: 'gone', state: 'archived' as const, created_at: 9 },
      { ...WORKTREE, name: 'new', created_at: 5 },
    ];
    expect(orderedWorktrees(list).map((w) => w.name)).toEqual(['new', 'old', 'gone']);
  });

  it('says what archiving keeps and loses', () => {
    const preview = {
      name: 'x',
      uncommitted: ['a', 'b'],
      ignored_bytes: 52_428_800,
      unmerged_commits: 1,
    };
    expect(archiveKept(preview)).toBe(
      '2 uncommitted files are kept in a snapshot and come back on restore:',
    );
    expect(archiveNotes(preview)).toEqual([
      '50 MB of ignored files (build output, dependencies) are not kept; the setup command makes them again.',
      '1 commit is not merged: it stays on the branch.',
    ]);
    expect(archiveNotes({ ...preview, ignored_bytes: 0, unmerged_commits: 0 })).toEqual([]);
    expect(archiveKept({ ...preview, uncommitted: [] })).toBe('No file is uncommitted.');
  });

  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1_572_864)).toBe('1.5 MB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GB');
  });
});

describe('the review pane', () => {
  const open = (name = 'fix-parser'): WorktreesAction => ({
    type: 'review_start',
    name,
    action: 'load',
  });

  it('is busy until the review comes, then shows it', () => {
    let state = play(EMPTY_WORKTREES, open());
    expect(state.review).toMatchObject({ name: 'fix-parser', busy: 'load', review: null });
    state = play(state, { type: 'reviewed', review: REVIEW });
    expect(state.review).toMatchObject({ busy: null, review: REVIEW });
  });

  it('keeps the last commit, merge and push until another worktree is reviewed', () => {
    const commit = { commit: 'abcdef1234', branch: 'arbor/fix-parser', files: 2 };
    const conflict = { outcome: 'conflict' as const, files: ['src/a.rs', 'src/b.rs'] };
    const push = { branch: 'arbor/fix-parser', url: 'https://h/r.git', commit: 'abcdef1234' };
    let state = play(
      EMPTY_WORKTREES,
      open(),
      { type: 'reviewed', review: REVIEW },
      { type: 'review_start', name: 'fix-parser', action: 'commit' },
      { type: 'committed', name: 'fix-parser', result: commit },
      { type: 'review_start', name: 'fix-parser', action: 'merge' },
      { type: 'merged', name: 'fix-parser', outcome: conflict },
      { type: 'review_start', name: 'fix-parser', action: 'push' },
      { type: 'pushed', name: 'fix-parser', result: push },
    );
    expect(state.review).toMatchObject({ busy: null, commit, merge: conflict, push });
    // Read again after a run: the results stay.
    state = play(state, open(), { type: 'reviewed', review: REVIEW });
    expect(state.review.merge).toBe(conflict);
    // Another worktree: none of them.
    state = play(state, open('other'));
    expect(state.review).toMatchObject({ name: 'other', commit: null, merge: null, push: null });
    // A late answer for the worktree left is dropped.
    expect(play(state, { type: 'reviewed', review: REVIEW })).toBe(state);
  });

  it('shows a failure with its action and code, cleared by the next action', () => {
    let state = play(EMPTY_WORKTREES, open(), { type: 'reviewed', review: REVIEW });
    state = play(
      state,
      { type: 'review_start', name: 'fix-parser', action: 'push' },
      {
        type: 'review_failed',
        name: 'fix-parser',
        error: { action: 'push', code: 'unknown', message: 'no remote' },
      },
    );
    expect(state.review).toMatchObject({ busy: null, error: { action: 'push' } });
    state = play(state, { type: 'review_start', name: 'fix-parser', action: 'merge' });
    expect(state.review.error).toBeNull();
    expect(play(state, { type: 'review_closed' }).review.name).toBeNull();
  });

  it('splits a hunk into added, removed, context lines and notes', () => {
    expect(hunkLines(' a\n-b\n+c\n\\ No newline at end of file\n')).toEqual([
      { kind: 'context', text: 'a' },
      { kind: 'del', text: 'b' },
      { kind: 'add', text: 'c' },
      { kind: 'note', text: '\\ No newline at end of file' },
    ]);
    expect(hunkLines('+x')).toEqual([{ kind: 'add', text: 'x' }]);
  });

  it('commits only with a message and something to commit', () => {
    expect(canCommit(REVIEW, 'Fix')).toBe(true);
    expect(canCommit(REVIEW, '   ')).toBe(false);
    expect(canCommit({ ...REVIEW, uncommitted: [] }, 'Fix')).toBe(false);
    expect(canCommit(null, 'Fix')).toBe(false);
  });

  it('says results in words', () => {
    expect(commitText({ commit: 'abcdef1234', branch: 'arbor/x', files: 1 })).toBe(
      'Committed 1 file on arbor/x (abcdef1).',
    );
    expect(mergeText({ outcome: 'fast_forward', commit: 'abcdef1234' }, 'arbor/x', 'main')).toBe(
      'main moved forward to arbor/x (abcdef1).',
    );
    expect(mergeText({ outcome: 'merged', commit: 'abcdef1234' }, 'arbor/x', 'main')).toBe(
      'arbor/x was merged into main (abcdef1).',
    );
    expect(mergeText({ outcome: 'up_to_date' }, 'arbor/x', 'main')).toContain('nothing to merge');
    expect(mergeText({ outcome: 'conflict', files: ['a', 'b'] }, 'arbor/x', 'main')).toBe(
      'Merging arbor/x into main would conflict in 2 files. Nothing was changed.',
    );
    expect(pushText({ branch: 'arbor/x', url: 'https://h/r.git', commit: 'abcdef1234' })).toBe(
      'Pushed arbor/x (abcdef1) to https://h/r.git.',
    );
  });
});

describe('the review pane’s last turn', () => {
  const item = (kind: 'user' | 'assistant', nodeId: string | null): ChatItem =>
    kind === 'user'
      ? { kind, key: `k-${nodeId}`, nodeId, siblings: [], text: 'hi', images: [], documents: [] }
      : {
          kind,
          key: `k-${nodeId}`,
          nodeId,
          siblings: [],
          content: [],
          status: 'done',
          errorMessage: null,
          model: 'm1',
        };
  const diff = (from: string, to: string): NodeDiff => ({
    from_node: from,
    to_node: to,
    from_snapshot: 'a',
    to_snapshot: 'b',
    files: [],
  });

  it('goes from the branch’s last stored user message to its leaf', () => {
    const items = [item('user', 'u1'), item('assistant', 'a1'), item('user', 'u2')];
    expect(lastTurnOf({ sessionId: 's1', items, leafId: 'a2' })).toEqual({
      sessionId: 's1',
      from: 'u2',
      to: 'a2',
    });
    // A user message not stored yet (its run just started): the last stored one.
    const unsaved = [...items.slice(0, 2), item('user', null)];
    expect(lastTurnOf({ sessionId: 's1', items: unsaved, leafId: 'a1' })).toMatchObject({
      from: 'u1',
      to: 'a1',
    });
    // No stored user message yet: no last turn.
    expect(lastTurnOf({ sessionId: null, items: [item('user', null)], leafId: null })).toBeNull();
    expect(lastTurnOf(null)).toBeNull();
  });

  it('keeps only the answer for the turn asked last, and goes with the pane', () => {
    const first = { sessionId: 's1', from: 'u1', to: 'a1' };
    const second = { sessionId: 's1', from: 'u2', to: 'a2' };
    let state = play(
      EMPTY_WORKTREES,
      { type: 'last_turn_start', nodes: first },
      { type: 'last_turn_start', nodes: second },
    );
    expect(state.lastTurn).toEqual({ nodes: second, diff: null, error: null });
    // The first turn's late answer is dropped.
    expect(play(state, { type: 'last_turn', nodes: first, diff: diff('u1', 'a1') })).toBe(state);
    state = play(state, { type: 'last_turn', nodes: second, diff: diff('u2', 'a2') });
    expect(state.lastTurn?.diff?.to_node).toBe('a2');
    state = play(state, {
      type: 'last_turn_failed',
      nodes: second,
      error: { code: 'no_code_state', message: 'stored before files were recorded' },
    });
    expect(state.lastTurn).toMatchObject({ diff: null, error: { code: 'no_code_state' } });
    expect(play(state, { type: 'last_turn_start', nodes: null }).lastTurn).toBeNull();
    expect(play(state, { type: 'review_closed' }).lastTurn).toBeNull();
  });
});

describe('the setup command', () => {
  const ok = { command: 'npm ci', exit_code: 0, timed_out: false, sandboxed: true };

  it('failed on a non-zero exit, a signal or a timeout', () => {
    expect(setupFailed(ok)).toBe(false);
    expect(setupFailed({ ...ok, exit_code: 2 })).toBe(true);
    expect(setupFailed({ ...ok, exit_code: null })).toBe(true);
    expect(setupFailed({ ...ok, exit_code: null, timed_out: true })).toBe(true);
    expect(setupText({ ...ok, exit_code: 2 })).toBe('The setup command failed with exit code 2.');
    expect(setupText({ ...ok, timed_out: true })).toContain('timed out');
    expect(setupText({ ...ok, exit_code: null })).toContain('signal');
    expect(setupText(ok)).toBe('The setup command finished.');
  });

  it('logs lines without terminal escapes, the oldest dropped past the limit', () => {
    let log = appendLog([], '\u001b[32madded\u001b[0m 1 package\n');
    expect(log).toEqual(['added 1 package']);
    for (let i = 0; i < MAX_LOG_LINES + 5; i++) log = appendLog(log, `line ${i}`);
    expect(log).toHaveLength(MAX_LOG_LINES);
    expect(log.at(-1)).toBe(`line ${MAX_LOG_LINES + 4}`);
  });
});
