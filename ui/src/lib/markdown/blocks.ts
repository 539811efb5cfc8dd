// Splitting a streaming Markdown message into top-level blocks, incrementally.
//
// A message grows a few characters at a time. Lexing all of it on every update would be
// O(length) per token (quadratic over a message) and would hand every block a new token object,
// re-rendering the whole message. Instead:
//
// - A block is *finished* once another (non-blank) block starts after it: in CommonMark the start
//   of a new block closes the previous one, so no later text can change it. Blank lines alone do
//   not finish a block (a list or an indented code block may continue after them).
// - Finished blocks are lexed once and kept (same object, same key), so their components never
//   re-render. Only the live tail after the last finished block is lexed again on each update.
// - An open code fence runs to the end of the text, so it is always the live block: a block is
//   never finished from inside an open fence.
// - Keys are start offsets, so the live block keeps its key (and its DOM) while it grows and when
//   it becomes finished.
// - When the message is complete, only the tail is lexed again, as while it streamed: finished
//   blocks cannot change. The one exception is a reference definition (`[label]: url`), which
//   may come after the links that use it: a text with a line that looks like one is lexed whole
//   once, so those links resolve. (Measured in the app's WebKitGTK webview: a whole lex at the
//   end of a 20,000-token answer held the main thread ~0.8 s; without it the longest task
//   at the end was ~0.17 s.)
import { Lexer, type Links, type Token, type Tokens, type TokensList } from 'marked';

export interface Block {
  /** The block's start offset in the text: stable while it grows, unique within a message. */
  key: string;
  /** The block's top-level token (never a `space`). */
  token: Token;
  /** No later text can change the block: another block followed it, or the message is complete. */
  closed: boolean;
}

/**
 * How deeply blocks (quotes, lists) and inline spans (emphasis, links) are rendered as elements;
 * deeper content is shown as its Markdown text. Each level costs a few nested components, and a
 * few hundred nested levels (a few kilobytes of hostile text) would overflow the call stack.
 */
export const MAX_DEPTH = 12;

function lex(text: string, links?: Links): TokensList {
  // Fresh options each time: marked stores its tokenizer (and the lexer) in the object it is given.
  const lexer = new Lexer({ gfm: true, breaks: false });
  // Reference definitions from finished blocks still apply to links in the tail.
  if (links) Object.assign(lexer.tokens.links, links);
  try {
    return lexer.lex(text);
  } catch {
    // marked recurses per nesting level: thousands of `>` overflow its stack. Show the text.
    const paragraph: Tokens.Paragraph = {
      type: 'paragraph',
      raw: text,
      text,
      tokens: [{ type: 'text', raw: text, text, escaped: true }],
    };
    return Object.assign([paragraph], { links: noLinks() });
  }
}

/** Labels are model text: no prototype, so `[constructor]: …` is just another label. */
function noLinks(): Links {
  return Object.create(null) as Links;
}

/** A line that may be a link reference definition (`[label]: destination`). */
const REFERENCE_DEFINITION = /^ {0,3}\[(?:[^\]\\\n]|\\.)+\]:/m;

export class BlockSplitter {
  /** The (newline-normalised) text of the last update. */
  #text = '';
  #streaming = true;
  /** Blocks no later text can change, and where the live tail after them starts. */
  #finished: Block[] = [];
  #end = 0;
  /** Reference definitions among the finished blocks. */
  #links: Links = noLinks();
  #blocks: Block[] = [];

  /**
   * The blocks of `text`. While `streaming`, text that extends the previous text re-lexes only the
   * live tail; any other text starts over. Once not streaming, the result is what a whole lex
   * gives (see the notes above on reference definitions).
   */
  update(input: string, streaming: boolean): Block[] {
    // marked turns CR LF into LF before lexing; offsets must count what marked counts.
    const text = input.includes('\r') ? input.replace(/\r\n?/g, '\n') : input;
    if (text === this.#text && streaming === this.#streaming && this.#blocks.length > 0) {
      return this.#blocks;
    }
    // A prefix check (a native compare) is the only whole-text work on an append.
    if (!text.startsWith(this.#text)) this.reset();
    this.#text = text;
    this.#streaming = streaming;

    let tokens: TokensList;
    let reusable = new Map<string, Block>();
    if (streaming || !REFERENCE_DEFINITION.test(text)) {
      tokens = lex(text.slice(this.#end), this.#links);
    } else {
      tokens = lex(text);
      // Blocks lexed alone came out the same as in the full lex unless a reference definition
      // (which may sit after its use) is involved: keep them then, so they do not re-render.
      if (Object.keys(tokens.links).length === 0) {
        reusable = new Map(this.#finished.map((block) => [block.key, block]));
      }
      this.#finished = [];
      this.#end = 0;
      this.#links = noLinks();
    }

    // Every block before the last non-blank one is finished.
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last].type === 'space') last -= 1;
    let at = this.#end;
    for (const [i, token] of tokens.entries()) {
      if (i === last) break;
      if (token.type !== 'space') {
        const key = String(at);
        const kept = reusable.get(key);
        this.#finished.push(
          kept && kept.token.raw === token.raw ? kept : { key, token, closed: true },
        );
        if (token.type === 'def') {
          const def = token as Tokens.Def;
          this.#links[def.tag] ??= { href: def.href, title: def.title };
        }
      }
      at += token.raw.length;
    }
    this.#end = at;
    const live: Block[] =
      last < 0 ? [] : [{ key: String(at), token: tokens[last], closed: !streaming }];
    // A new array each time: Svelte's keyed each then reuses the components of unchanged keys.
    this.#blocks = [...this.#finished, ...live];
    return this.#blocks;
  }

  reset(): void {
    this.#text = '';
    this.#streaming = true;
    this.#finished = [];
    this.#end = 0;
    this.#links = noLinks();
    this.#blocks = [];
  }
}

/**
 * Whether a fenced code block's raw text ends with its closing fence (same character, at least as
 * long as the opening one). An indented code block has no fence: it counts as open.
 */
export function fenceClosed(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  if (!open) return false;
  const body = raw.trimEnd();
  const lastLine = body.slice(body.lastIndexOf('\n') + 1);
  if (lastLine.length === body.length) return false;
  const close = /^ {0,3}(`{3,}|~{3,})$/.exec(lastLine);
  return close !== null && close[1][0] === open[1][0] && close[1].length >= open[1].length;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  deg: '°',
  times: '×',
  divide: '÷',
  plusmn: '±',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  le: '≤',
  ge: '≥',
  ne: '≠',
  check: '✓',
};

/**
 * Decodes character references. Marked leaves them in text (its HTML output lets the browser
 * decode them); the UI renders text nodes, so text that marked would emit unescaped is decoded
 * here. Unknown names stay as written.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      if (!Number.isFinite(code) || code > 0x10ffff) return whole;
      // As browsers do: NUL and lone surrogates become the replacement character.
      return code === 0 || (code >= 0xd800 && code <= 0xdfff)
        ? '\ufffd'
        : String.fromCodePoint(code);
    }
    // Names are case-sensitive in HTML.
    return NAMED[name] ?? whole;
  });
}
