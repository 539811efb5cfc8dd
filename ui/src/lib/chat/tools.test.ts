import { describe, expect, it } from 'vitest';
import { argumentText, editDiff, foldLines, resultText, toolSummary } from './tools';

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

  it('tolerate details of the wrong shape', () => {
    expect(toolSummary('read', { path: 7 }, { content: [], details: [1, 2] })).toBe('');
    expect(editDiff({ content: [], details: { diff: 5 } })).toBeNull();
    expect(editDiff(null)).toBeNull();
  });
});

describe('tool text', () => {
  it('joins result parts and names images', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'AAAA', mime_type: 'image/png' },
        ],
      }),
    ).toBe('a\n[image image/png]');
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
