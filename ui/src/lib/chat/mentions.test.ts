import { describe, expect, it } from 'vitest';
import { appendMention, insertMention, matchParts, mentionAt, moveActive } from './mentions';

describe('an @ mention being typed', () => {
  it('is found at the start of the text or after whitespace, up to the caret', () => {
    expect(mentionAt('@', 1)).toEqual({ start: 0, end: 1, query: '' });
    expect(mentionAt('look at @src/ma', 15)).toEqual({ start: 8, end: 15, query: 'src/ma' });
    expect(mentionAt('one\n@lib', 8)).toEqual({ start: 4, end: 8, query: 'lib' });
    // The caret in the middle of the word: what is before it.
    expect(mentionAt('@main.rs', 3)).toEqual({ start: 0, end: 3, query: 'ma' });
  });

  it('is not an e-mail address, nor a mention left behind, nor a selection', () => {
    expect(mentionAt('me@example.com', 14)).toBeNull();
    expect(mentionAt('@main.rs and', 12)).toBeNull();
    expect(mentionAt('@main.rs ', 9)).toBeNull();
    expect(mentionAt('@main', 5, 3)).toBeNull();
    expect(mentionAt('', 0)).toBeNull();
    expect(mentionAt('plain', 5)).toBeNull();
  });
});

describe('choosing a file', () => {
  it('puts `@path ` in place of what was typed, the caret after it', () => {
    expect(insertMention('read @ma please', { start: 5, end: 8 }, 'src/main.rs')).toEqual({
      text: 'read @src/main.rs please',
      caret: 18,
    });
    expect(insertMention('@ma', { start: 0, end: 3 }, 'src/main.rs')).toEqual({
      text: '@src/main.rs ',
      caret: 13,
    });
    // The rest of the word typed after the caret is kept.
    expect(insertMention('@maxx', { start: 0, end: 3 }, 'a.rs')).toEqual({
      text: '@a.rs xx',
      caret: 6,
    });
  });

  it('adds a mention from elsewhere at the end, spaced', () => {
    expect(appendMention('', 'a.rs')).toBe('@a.rs ');
    expect(appendMention('see', 'a.rs')).toBe('see @a.rs ');
    expect(appendMention('see ', 'a.rs')).toBe('see @a.rs ');
    expect(appendMention('@a.rs ', 'b.rs')).toBe('@a.rs @b.rs ');
  });
});

describe('a match’s letters', () => {
  it('are split into marked and unmarked runs by character position', () => {
    expect(matchParts('src/main.rs', [4, 5, 6])).toEqual([
      { text: 'src/', hit: false },
      { text: 'mai', hit: true },
      { text: 'n.rs', hit: false },
    ]);
    expect(matchParts('ab', [])).toEqual([{ text: 'ab', hit: false }]);
    expect(matchParts('ab', [0, 1, 9])).toEqual([{ text: 'ab', hit: true }]);
    expect(matchParts('', [0])).toEqual([]);
  });

  it('counts characters as Rust does, not UTF-16 units', () => {
    // 😀 is two UTF-16 units but one character.
    expect(matchParts('😀/ab', [2])).toEqual([
      { text: '😀/', hit: false },
      { text: 'a', hit: true },
      { text: 'b', hit: false },
    ]);
  });
});

describe('the active option', () => {
  it('moves with the arrows, wrapping', () => {
    expect(moveActive(0, 1, 3)).toBe(1);
    expect(moveActive(2, 1, 3)).toBe(0);
    expect(moveActive(0, -1, 3)).toBe(2);
    expect(moveActive(-1, 1, 3)).toBe(0);
    expect(moveActive(-1, -1, 3)).toBe(2);
    expect(moveActive(0, 1, 0)).toBe(-1);
  });
});
