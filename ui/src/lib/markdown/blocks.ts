// Splitting a streaming Markdown message into top-level blocks, incrementally.
//
// Finished blocks are lexed once and keep their identity (and key), so their components never
// re-render; only the live tail after the last finished block is lexed again on each update.
// A block becomes finished when another block starts after it. When the message is complete the
// whole text is lexed once, so the final rendering is exact (a few constructs, such as a list
// continued after a paragraph, only resolve then).
import { Lexer, type Token, type TokensList } from 'marked';

export interface Block {
  /** Stable while the block's start offset and text stay the same. */
  key: string;
  token: Token;
}

const OPTIONS = { gfm: true, breaks: false } as const;

function lex(text: string): TokensList {
  return new Lexer(OPTIONS).lex(text);
}

function blocksFrom(tokens: Token[], offset: number, keep: Map<string, Block>): Block[] {
  const blocks: Block[] = [];
  let at = offset;
  for (const token of tokens) {
    const key = `${at}:${token.raw.length}`;
    at += token.raw.length;
    if (token.type === 'space') continue;
    const previous = keep.get(key);
    blocks.push(previous && previous.token.raw === token.raw ? previous : { key, token });
  }
  return blocks;
}

export class BlockSplitter {
  #text = '';
  #stable: Block[] = [];
  #stableEnd = 0;
  #blocks: Block[] = [];

  update(text: string, streaming: boolean): Block[] {
    if (!text.startsWith(this.#text) || text.length < this.#stableEnd) this.reset();
    const keep = new Map(this.#blocks.map((block) => [block.key, block]));
    this.#text = text;
    if (!streaming) {
      this.#blocks = blocksFrom(lex(text), 0, keep);
      this.#stable = this.#blocks;
      this.#stableEnd = text.length;
      return this.#blocks;
    }
    const tail = lex(text.slice(this.#stableEnd));
    // Every token but the last is followed by another block: it is finished.
    const finished = tail.slice(0, -1);
    const live = tail.slice(-1);
    if (finished.length > 0) {
      this.#stable = [...this.#stable, ...blocksFrom(finished, this.#stableEnd, keep)];
      this.#stableEnd += finished.reduce((sum, token) => sum + token.raw.length, 0);
    }
    this.#blocks = [...this.#stable, ...blocksFrom(live, this.#stableEnd, keep)];
    return this.#blocks;
  }

  reset(): void {
    this.#text = '';
    this.#stable = [];
    this.#stableEnd = 0;
    this.#blocks = [];
  }
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Marked keeps entities (and escapes `<`, `&`…) in text; the UI renders text, so decode them. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
