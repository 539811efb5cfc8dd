import { describe, expect, it } from 'vitest';
import { argumentText, editDiff, foldLines, resultParts, resultText, toolSummary } from './tools';

describe('tool summaries', () => {
  it('say what a read, write, edit and bash did', () => {
    const read = {
      content: [],
      details: { path: 'a.rs', start_line: 1, end_line: 20, total_lines: 90 },
    };
    expect(toolSummary('read', { path: 'a.rs' }, read)).toBe('a.rs · lines 1–20 of 90');
    expect(toolSummary('read', { path: 'a.rs' }, null)).toBe('a.rs');
    const created = { content: [], details: { path: 'n.txt', bytes: 1200, created: true } };
    expect(toolSummary('write', { path: 'n.txt' }, created)).toBe('n.txt · created · 1,200 bytes');
    const over = { content: [], details: { path: 'n.txt', bytes: 3, created: false } };
    expect(toolSummary('write', {}, over)).toBe('n.txt · overwritten · 3 bytes');
    const edit = { content: [], details: { path: 'x', diff: '@@', replacements: 2 } };
    expect(toolSummary('edit', {}, edit)).toBe('x · 2 changes');
    expect(toolSummary('bash', { command: 'ls\necho' }, null)).toBe('ls');
    expect(toolSummary('custom', {}, null)).toBe('');
  });

  it('count the done tasks of a todo call', () => {
    const todos = [
      { content: 'a', status: 'done' },
      { content: 'b', status: 'done' },
      { content: 'c', status: 'done' },
      { content: 'd', status: 'in_progress' },
      { content: 'e', status: 'pending' },
    ];
    expect(toolSummary('todo', { todos }, null)).toBe('3/5 done');
    expect(toolSummary('todo', { todos: [] }, null)).toBe('no tasks');
    expect(toolSummary('todo', { todos: 'oops' }, null)).toBe('');
    expect(toolSummary('todo', {}, null)).toBe('');
  });

  it('tolerate details of the wrong shape', () => {
    expect(toolSummary('read', { path: 7 }, { content: [], details: [1, 2] })).toBe('');
    expect(editDiff({ content: [], details: { diff: 5 } })).toBeNull();
    expect(editDiff(null)).toBeNull();
  });
});

describe('tool text', () => {
  it('splits a result into its text and the images it can show', () => {
    expect(resultParts(null)).toEqual({ text: '', images: [] });
    expect(
      resultParts({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AAAA', mime_type: 'image/png' },
          { type: 'text', text: 'b' },
          { type: 'image', data: 'R0lG/+8=', mime_type: 'image/gif' },
        ],
      }),
    ).toEqual({
      text: 'a\nb',
      images: [
        { data: 'AAAA', mime_type: 'image/png' },
        { data: 'R0lG/+8=', mime_type: 'image/gif' },
      ],
    });
  });

  it('keeps images it does not show as a note in the text', () => {
    const result = {
      content: [
        { type: 'text' as const, text: 'a' },
        { type: 'image' as const, data: 'PHN2Zz4=', mime_type: 'image/svg+xml' },
        { type: 'image' as const, data: 'AA"onerror=', mime_type: 'image/png' },
        { type: 'image' as const, data: '', mime_type: 'image/webp' },
      ],
    };
    expect(resultParts(result)).toEqual({
      text: 'a\n[image image/svg+xml, not shown]\n[image image/png, not shown]\n[image image/webp, not shown]',
      images: [],
    });
    expect(resultText(result)).toBe(resultParts(result).text);
  });

  it('shows arguments as lines', () => {
    expect(argumentText({ path: 'a', edits: [{ old_text: 'x' }] })).toBe(
      'path: a\nedits: [\n  {\n    "old_text": "x"\n  }\n]',
    );
  });

  it('folds long text from either end', () => {
    const text = ['1', '2', '3', '4', '5'].join('\n');
    expect(foldLines(text, 10)).toEqual({ text, hiddenLines: 0 });
    expect(foldLines(text, 2)).toEqual({ text: '1\n2', hiddenLines: 3 });
    expect(foldLines(text, 2, true)).toEqual({ text: '4\n5', hiddenLines: 3 });
  });
});
