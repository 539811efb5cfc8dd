import { describe, expect, it } from 'vitest';
import type { AgentMessage, BranchComparison, BranchEntry, NodeKind } from '../ipc/wire';
import {
  alignRows,
  CELL_CHARS,
  clip,
  compareRows,
  entryText,
  previewOf,
  toolCalls,
  turnsOf,
} from './compare';

const USAGE = {
  input: 1,
  output: 1,
  cache_read: 0,
  cache_write: 0,
  cost: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
};

function entry(
  id: string,
  kind: NodeKind,
  message: AgentMessage | null = null,
  extra: Partial<BranchEntry> = {},
): BranchEntry {
  return {
    node_id: id,
    parent_id: null,
    kind,
    message,
    aborted: false,
    label: null,
    sibling_ids: [id],
    summary: null,
    tokens_before: null,
    ...extra,
  };
}

function user(id: string, text: string): BranchEntry {
  return entry(id, 'user', { role: 'user', content: [{ type: 'text', text }] });
}

function assistant(
  id: string,
  text: string,
  calls: { name: string; arguments: Record<string, string> }[] = [],
): BranchEntry {
  return entry(id, 'assistant', {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hidden reasoning' },
      { type: 'text', text },
      ...calls.map((call, i) => ({ type: 'tool_call' as const, id: `c${i}`, ...call })),
    ],
    api: 'openai-completions',
    provider: 'mock',
    model: 'm1',
    usage: USAGE,
    stop_reason: 'stop',
  });
}

function result(id: string, text: string, is_error = false): BranchEntry {
  return entry(id, 'tool_result', {
    role: 'tool_result',
    tool_call_id: 'c0',
    tool_name: 'bash',
    content: [{ type: 'text', text }],
    is_error,
  });
}

describe('the text of a stored message', () => {
  it('takes text parts only, and the summary of summaries', () => {
    expect(entryText(user('u', 'fix <b>it</b>'))).toBe('fix <b>it</b>');
    expect(entryText(assistant('a', 'Done.', [{ name: 'read', arguments: { path: 'x' } }]))).toBe(
      'Done.',
    );
    expect(entryText(entry('c', 'compaction', null, { summary: 'so far' }))).toBe('so far');
    expect(entryText(entry('m', 'model_change'))).toBe('');
  });

  it('writes tool calls as one-liners and previews cut text', () => {
    const a = assistant('a', 'x', [{ name: 'bash', arguments: { command: 'ls\n-la' } }]);
    expect(toolCalls(a)).toEqual(['bash(command: "ls\\n-la")']);
    const long = user('u', 'y'.repeat(1000));
    expect(previewOf(long).text).toHaveLength(600);
    expect(previewOf(a)).toMatchObject({ kind: 'Assistant', tools: ['bash'], label: null });
    expect(clip('  abc  ', 10)).toBe('abc');
    expect(clip('abcdef', 4)).toBe('abc…');
  });
});

describe('lining up two branches', () => {
  it('folds tool results into their turn and markers onto the next', () => {
    const turns = turnsOf([
      assistant('a1', 'Looking.', [{ name: 'bash', arguments: { command: 'ls' } }]),
      result('t1', '\nsrc\nCargo.toml'),
      result('t2', 'boom', true),
      entry('m1', 'model_change'),
      user('u2', 'z'.repeat(CELL_CHARS * 2)),
      entry('k1', 'thinking_level_change'),
    ]);
    expect(turns.map((t) => [t.nodeId, t.role])).toEqual([
      ['a1', 'Assistant'],
      ['u2', 'You'],
      ['k1', 'Settings'],
    ]);
    expect(turns[0].calls).toEqual(['bash(command: "ls")']);
    expect(turns[0].results).toEqual([
      { name: 'bash', line: 'src', error: false },
      { name: 'bash', line: 'boom', error: true },
    ]);
    expect(turns[1].markers).toEqual(['model changed']);
    expect(turns[1].text).toHaveLength(CELL_CHARS);
    expect(turns[2].markers).toEqual(['thinking changed']);
  });

  it('keeps a tool result that starts a branch as its own turn', () => {
    const turns = turnsOf([result('t1', 'ok'), assistant('a2', 'Next.')]);
    expect(turns.map((t) => t.role)).toEqual(['Tool result', 'Assistant']);
    expect(turns[0].results[0].line).toBe('ok');
  });

  it('aligns rows by turn, leaving the shorter side empty', () => {
    const comparison: BranchComparison = {
      session_id: 's1',
      ancestor_id: 'u1',
      shared_nodes: 1,
      left: {
        node_id: 'a1',
        entries: [assistant('a1', 'A'), result('t1', 'ok')],
        tokens: 10,
        cost: 0.1,
        own_tokens: 10,
        own_cost: 0.1,
      },
      right: {
        node_id: 'a3',
        entries: [assistant('a2', 'B'), user('u3', 'more'), assistant('a3', 'C')],
        tokens: 20,
        cost: 0.2,
        own_tokens: 20,
        own_cost: 0.2,
      },
    };
    const rows = compareRows(comparison);
    expect(rows.map((r) => [r.left?.nodeId ?? null, r.right?.nodeId ?? null])).toEqual([
      ['a1', 'a2'],
      [null, 'u3'],
      [null, 'a3'],
    ]);
    expect(alignRows([], [])).toEqual([]);
  });
});
