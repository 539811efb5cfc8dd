// The composer's `@` mentions, pure: where a mention is being typed, what choosing a file puts in
// the text, and a match's letters split for highlighting. The composer asks Rust for the files
// (`find_files`) and reads the chosen one (`mention_file`).

/** An `@` being typed: where it starts in the text and what follows it up to the caret. */
export interface MentionQuery {
  /** The index of the `@`. */
  start: number;
  /** The index just past what was typed after it (the caret). */
  end: number;
  query: string;
}

/**
 * The mention the caret is in: an `@` at the start of the text or after whitespace, with no
 * whitespace between it and the caret (`a@b` is an e-mail address, not a mention). `null` when
 * the caret is not in one, or when text is selected.
 */
export function mentionAt(text: string, caret: number, selectionEnd = caret): MentionQuery | null {
  if (selectionEnd !== caret || caret < 1 || caret > text.length) return null;
  for (let i = caret - 1; i >= 0; i--) {
    const char = text[i];
    if (/\s/.test(char)) return null;
    if (char === '@') {
      if (i > 0 && !/\s/.test(text[i - 1])) return null;
      return { start: i, end: caret, query: text.slice(i + 1, caret) };
    }
  }
  return null;
}

/** The text after choosing `path` for `mention`: `@path ` in place of what was typed, and where
 * the caret goes (after the space). A space already after the mention is not doubled. */
export function insertMention(
  text: string,
  mention: Pick<MentionQuery, 'start' | 'end'>,
  path: string,
): { text: string; caret: number } {
  const before = text.slice(0, mention.start);
  const after = text.slice(mention.end);
  const inserted = `@${path}${/^\s/.test(after) ? '' : ' '}`;
  const caret = before.length + inserted.length + (/^\s/.test(after) ? 1 : 0);
  return { text: before + inserted + after, caret };
}

/** `text` with `@path ` added at its end (a file mentioned from elsewhere in the window). */
export function appendMention(text: string, path: string): string {
  const gap = text === '' || /\s$/.test(text) ? '' : ' ';
  return `${text}${gap}@${path} `;
}

/** A run of a path's characters, matched (`hit`) or not. */
export interface MatchPart {
  text: string;
  hit: boolean;
}

/**
 * `path` split into runs of matched and unmatched characters. `indices` are positions in
 * characters (Unicode scalar values, as Rust counts them), not UTF-16 code units; positions out
 * of range are ignored.
 */
export function matchParts(path: string, indices: readonly number[]): MatchPart[] {
  const chars = Array.from(path);
  const hits = new Set(indices);
  const parts: MatchPart[] = [];
  chars.forEach((char, i) => {
    const hit = hits.has(i);
    const last = parts[parts.length - 1];
    if (last && last.hit === hit) last.text += char;
    else parts.push({ text: char, hit });
  });
  return parts;
}

/** The next option to make active, moving `step` (±1) from `active` through `count`, wrapping. */
export function moveActive(active: number, step: number, count: number): number {
  if (count <= 0) return -1;
  if (active < 0) return step > 0 ? 0 : count - 1;
  return (((active + step) % count) + count) % count;
}
