import { Lexer, type Token } from 'marked';
import { describe, expect, it } from 'vitest';
import { BlockSplitter, decodeEntities, fenceClosed, type Block } from './blocks';

// Every construct whose end depends on what follows: fences (with a shorter fence inside), tight
// and loose lists (continued after a blank line), nested and task lists, tables, quotes, setext
// headings, indented code, raw HTML and reference links.
const DOC = `# Title

Some *text* with \`code\` and a [ref][docs].

[docs]: https://example.com/docs "Docs"

\`\`\`rust
fn main() {

    println!("hi");
}
\`\`\`

~~~~md
\`\`\`
not a close
~~~
~~~~

- one
- two

- three, now loose
  continued

  1. nested
  2. list

* [x] done
* [ ] todo

| a | b |
|---|:-:|
| 1 | 2 |
| **3** | \`4\` |

> quoted
lazily continued

> > deeper

Setext heading
--------------

    indented code

    still code

<div>
raw html
</div>

***

Last paragraph
with a second line.
`;

function fullLex(text: string): Token[] {
  return new Lexer({ gfm: true }).lex(text).filter((token) => token.type !== 'space');
}

function raws(blocks: Block[]): string[] {
  return blocks.map((block) => block.token.raw);
}

/** A small deterministic PRNG, so a failing split can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('BlockSplitter', () => {
  it('shows, at every streamed length, exactly what a full lex of the text so far shows', () => {
    for (let seed = 1; seed <= 25; seed += 1) {
      const next = random(seed);
      const splitter = new BlockSplitter();
      for (let end = 0; end < DOC.length; end += 1 + Math.floor(next() * 12)) {
        const text = DOC.slice(0, end);
        expect(raws(splitter.update(text, true)), `seed ${seed}, ${end}`).toEqual(
          fullLex(text).map((token) => token.raw),
        );
      }
      const done = splitter.update(DOC, false);
      expect(done.map((block) => block.token)).toEqual(fullLex(DOC));
    }
  });

  it('matches a full lex one character at a time, with CR LF line ends too', () => {
    for (const doc of [DOC, DOC.replace(/\n/g, '\r\n')]) {
      const splitter = new BlockSplitter();
      for (let end = 1; end <= doc.length; end += 1) {
        const text = doc.slice(0, end);
        expect(raws(splitter.update(text, true)), `${end}`).toEqual(
          fullLex(text).map((token) => token.raw),
        );
      }
      expect(raws(splitter.update(doc, false))).toEqual(fullLex(doc).map((token) => token.raw));
    }
  });

  it('keeps earlier blocks (same objects, same keys) as text grows', () => {
    const splitter = new BlockSplitter();
    const first = splitter.update('# Title\n\nA paragraph.\n\nMore', true);
    const second = splitter.update('# Title\n\nA paragraph.\n\nMore text arrives', true);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    // The live block keeps its key while it grows.
    expect(second[2].key).toBe(first[2].key);
    expect(second[2].token.raw).toBe('More text arrives');
    expect(second.map((block) => block.closed)).toEqual([true, true, false]);
    const done = splitter.update('# Title\n\nA paragraph.\n\nMore text arrives', false);
    expect(done[0]).toBe(first[0]);
    expect(done[1]).toBe(first[1]);
    expect(done.map((block) => block.closed)).toEqual([true, true, true]);
  });

  it('keeps every key stable over a whole streamed document', () => {
    const splitter = new BlockSplitter();
    const seen = new Map<string, Block>();
    for (let end = 1; end <= DOC.length; end += 7) {
      const blocks = splitter.update(DOC.slice(0, end), true);
      for (const block of blocks.slice(0, -1)) {
        const before = seen.get(block.key);
        if (before?.closed) expect(block, block.key).toBe(before);
        seen.set(block.key, block);
      }
    }
  });

  /** The lengths of the texts marked lexes while `work` runs. */
  function lexedDuring(work: () => void): number[] {
    const lex = Lexer.prototype.lex;
    const lexed: number[] = [];
    Lexer.prototype.lex = function (src: string) {
      lexed.push(src.length);
      return lex.call(this, src);
    };
    try {
      work();
    } finally {
      Lexer.prototype.lex = lex;
    }
    return lexed;
  }

  const paragraphs = Array.from({ length: 200 }, (_, i) => `Paragraph ${i}.`).join('\n\n');

  it('lexes only the live tail on an append', () => {
    const splitter = new BlockSplitter();
    splitter.update(paragraphs, true);
    const lexed = lexedDuring(() => splitter.update(`${paragraphs} more`, true));
    expect(lexed).toEqual(['Paragraph 199. more'.length]);
  });

  it('lexes only the tail when the message completes, and all of it for a late reference', () => {
    const lexedOnCompletion = (text: string): number[] => {
      const splitter = new BlockSplitter();
      splitter.update(text, true);
      return lexedDuring(() => splitter.update(text, false));
    };
    expect(lexedOnCompletion(paragraphs)).toEqual(['Paragraph 199.'.length]);
    const withDefinition = `See [the docs][d].\n\n${paragraphs}\n\n[d]: https://example.com`;
    expect(lexedOnCompletion(withDefinition)).toEqual([withDefinition.length]);
  });

  it('never finishes an open code fence', () => {
    const splitter = new BlockSplitter();
    const open = 'Intro\n\n```rust\nfn a() {}\n\n# not a heading\n\n- nor a list\n';
    const blocks = splitter.update(open, true);
    expect(blocks.map((b) => b.token.type)).toEqual(['paragraph', 'code']);
    expect(blocks[1].closed).toBe(false);
    expect(fenceClosed(blocks[1].token.raw)).toBe(false);
    const closed = splitter.update(`${open}\`\`\`\n\nAfter`, true);
    expect(closed.map((b) => b.token.type)).toEqual(['paragraph', 'code', 'paragraph']);
    expect(closed[1].key).toBe(blocks[1].key);
    expect(closed[1].closed).toBe(true);
    expect(closed[1].token.type === 'code' && closed[1].token.text).toBe(
      'fn a() {}\n\n# not a heading\n\n- nor a list',
    );
  });

  it('starts over when the text is not a continuation', () => {
    const splitter = new BlockSplitter();
    splitter.update('First one.\n\nSecond', true);
    expect(raws(splitter.update('Something else', true))).toEqual(['Something else']);
    expect(raws(splitter.update('Some', true))).toEqual(['Some']);
    expect(splitter.update('', true)).toEqual([]);
  });

  it('can stream on after a complete rendering', () => {
    const splitter = new BlockSplitter();
    splitter.update('- one\n\n', false);
    expect(raws(splitter.update('- one\n\n  continued', true))).toEqual(
      fullLex('- one\n\n  continued').map((token) => token.raw),
    );
  });

  it('resolves reference links defined after their use once complete', () => {
    const text = 'See [the docs].\n\nMore.\n\n[the docs]: https://example.com';
    const splitter = new BlockSplitter();
    for (let end = 1; end <= text.length; end += 1) splitter.update(text.slice(0, end), true);
    const [first] = splitter.update(text, false);
    expect(first.token).toEqual(fullLex(text)[0]);
    expect(JSON.stringify(first.token)).toContain('"type":"link"');
  });
});

it('carries reference definitions into later tails, whatever their labels', () => {
  const text =
    '[constructor]: https://a.example\n\n[__proto__]: https://b.example\n\nSee [constructor] and [__proto__].';
  const splitter = new BlockSplitter();
  for (let end = 1; end <= text.length; end += 1) {
    const blocks = splitter.update(text.slice(0, end), true);
    expect(raws(blocks)).toEqual(fullLex(text.slice(0, end)).map((token) => token.raw));
  }
  const last = splitter.update(text, true).at(-1);
  expect(last?.token).toEqual(fullLex(text).at(-1));
  expect(JSON.stringify(last?.token)).toContain('https://b.example');
});

describe('fenceClosed', () => {
  it('needs a closing fence of the same kind, at least as long', () => {
    expect(fenceClosed('```rust\nfn main() {}\n```')).toBe(true);
    expect(fenceClosed('```rust\nfn main() {}\n```\n')).toBe(true);
    expect(fenceClosed('```\n```')).toBe(true);
    expect(fenceClosed('````\ncode\n`````')).toBe(true);
    expect(fenceClosed('~~~\ncode\n~~~')).toBe(true);
    expect(fenceClosed('```rust')).toBe(false);
    expect(fenceClosed('```rust\nfn main() {}\n``')).toBe(false);
    expect(fenceClosed('````\ncode\n```')).toBe(false);
    expect(fenceClosed('~~~\ncode\n```')).toBe(false);
    expect(fenceClosed('```\ncode\n``` trailing')).toBe(false);
    expect(fenceClosed('    indented code')).toBe(false);
  });
});

describe('decodeEntities', () => {
  it('decodes what marked keeps encoded, and leaves the rest', () => {
    expect(decodeEntities('a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x41; &mdash;')).toBe(
      'a & b <c> "d" \'e\' A —',
    );
    expect(decodeEntities('&unknown; &#0; &#xD800; & x &#99999999;')).toBe(
      '&unknown; \ufffd \ufffd & x &#99999999;',
    );
  });
});
