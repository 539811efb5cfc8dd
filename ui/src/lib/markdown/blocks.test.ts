import { Lexer } from 'marked';
import { describe, expect, it } from 'vitest';
import { BlockSplitter, decodeEntities } from './blocks';

const DOC = `# Title

Some *text* with \`code\`.

\`\`\`rust
fn main() {

    println!("hi");
}
\`\`\`

- one
- two

| a | b |
|---|---|
| 1 | 2 |

> quoted

Last paragraph.
`;

function fullRaws(text: string): string[] {
  return new Lexer({ gfm: true })
    .lex(text)
    .filter((token) => token.type !== 'space')
    .map((token) => token.raw);
}

describe('BlockSplitter', () => {
  it('ends, once complete, exactly where a full lex ends, from any streaming split', () => {
    for (let step = 1; step < 40; step += 3) {
      const splitter = new BlockSplitter();
      for (let end = step; end < DOC.length; end += step) splitter.update(DOC.slice(0, end), true);
      const blocks = splitter.update(DOC, false);
      expect(blocks.map((block) => block.token.raw)).toEqual(fullRaws(DOC));
    }
  });

  it('while streaming, shows the same blocks as a full lex of the text so far', () => {
    const splitter = new BlockSplitter();
    const cut = DOC.indexOf('- two');
    const blocks = splitter.update(DOC.slice(0, cut), true);
    expect(blocks.map((b) => b.token.type)).toEqual(['heading', 'paragraph', 'code', 'list']);
  });

  it('keeps finished blocks (same objects, same keys) as text grows', () => {
    const splitter = new BlockSplitter();
    const first = splitter.update('# Title\n\nA paragraph.\n\nMore', true);
    const second = splitter.update('# Title\n\nA paragraph.\n\nMore text arrives', true);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second[2].token.raw).toBe('More text arrives');
    const done = splitter.update('# Title\n\nA paragraph.\n\nMore text arrives', false);
    expect(done[0]).toBe(first[0]);
  });

  it('does not finish an open code fence', () => {
    const splitter = new BlockSplitter();
    const blocks = splitter.update('Intro\n\n```rust\nfn a() {}\n\nfn b() {}\n', true);
    expect(blocks.map((b) => b.token.type)).toEqual(['paragraph', 'code']);
    const closed = splitter.update('Intro\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n\nAfter', true);
    expect(closed.map((b) => b.token.type)).toEqual(['paragraph', 'code', 'paragraph']);
    expect(closed[1].token.type === 'code' && closed[1].token.text).toBe('fn a() {}\n\nfn b() {}');
  });

  it('starts over when the text is not a continuation', () => {
    const splitter = new BlockSplitter();
    splitter.update('First one.\n\nSecond', true);
    const blocks = splitter.update('Something else', true);
    expect(blocks.map((b) => b.token.raw)).toEqual(['Something else']);
  });
});

describe('decodeEntities', () => {
  it('decodes what marked keeps encoded, and leaves the rest', () => {
    expect(decodeEntities('a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x41;')).toBe(
      'a & b <c> "d" \'e\' A',
    );
    expect(decodeEntities('&unknown; &#0; & x')).toBe('&unknown; &#0; & x');
  });
});
