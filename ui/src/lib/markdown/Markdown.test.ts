import { fireEvent, render } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Markdown from './Markdown.svelte';

// Each payload is its own paragraph (or block), and what must stay visible as text.
const HOSTILE: [payload: string, visible: string][] = [
  ['<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>'],
  ['<script>alert(1)</script>', '<script>alert(1)</script>'],
  ['[a](javascript:alert(1))', 'a'],
  ['[b](JAVASCRIPT:alert(1))', 'b'],
  [' [c]( javascript:alert(1))', 'c'],
  ['[d](&#106;avascript:alert(1))', 'd'],
  ['[e](java\tscript:alert(1))', 'e'],
  ['<iframe src=https://evil.example></iframe>', '<iframe src=https://evil.example></iframe>'],
  ['<svg onload=alert(1)><circle/></svg>', '<svg onload=alert(1)><circle/></svg>'],
  ['![f](https://evil.example/x.png)', '[image: f]'],
  ['![g](javascript:alert(1))', '[image: g]'],
  ['<a href="javascript:alert(1)">h</a>', '<a href="javascript:alert(1)">h</a>'],
  ['[i](data:text/html,<script>alert(1)</script>)', 'i'],
  ['inline <img src=x onerror=alert(2)> html', 'inline <img src=x onerror=alert(2)> html'],
  ['<object data=x></object><embed src=x>', '<object data=x></object><embed src=x>'],
  ['<style>*{display:none}</style>', '<style>*{display:none}</style>'],
  ['[j](vbscript:msgbox(1)) [k](file:///etc/passwd) [l](/relative)', 'j k l'],
  ['<https://ok.example/?q=<script>>', 'https://ok.example/?q='],
];

function show(text: string, streaming = false) {
  const onopenlink = vi.fn<(href: string) => void>();
  const view = render(Markdown, { text, streaming, onopenlink });
  return { ...view, onopenlink };
}

function assertInert(container: HTMLElement) {
  for (const tag of ['script', 'img', 'iframe', 'svg', 'object', 'embed', 'style', 'form']) {
    expect(container.querySelector(tag), tag).toBeNull();
  }
  for (const element of container.querySelectorAll('*')) {
    for (const attribute of element.attributes) {
      expect(
        attribute.name.toLowerCase().startsWith('on'),
        `${element.tagName} ${attribute.name}`,
      ).toBe(false);
    }
    expect(element.hasAttribute('style'), element.tagName).toBe(false);
    expect(element.hasAttribute('src'), element.tagName).toBe(false);
  }
  for (const link of container.querySelectorAll('a[href]')) {
    const href = link.getAttribute('href') ?? '';
    expect(href).toMatch(/^https?:\/\//);
    expect(href.toLowerCase()).not.toMatch(/^\s*(javascript|data|vbscript):/);
  }
}

let clicks: MouseEvent[] = [];
// A click that reached the document without being cancelled would navigate the webview.
function record(event: MouseEvent) {
  clicks.push(event);
}
document.addEventListener('click', record);
afterEach(() => {
  clicks = [];
});

describe('hostile Markdown', () => {
  it('renders every payload as inert, visible text, finished or streaming', () => {
    const text = HOSTILE.map(([payload]) => payload).join('\n\n');
    for (const streaming of [false, true]) {
      const { container, unmount } = show(text, streaming);
      assertInert(container);
      for (const [, visible] of HOSTILE) expect(container.textContent).toContain(visible);
      unmount();
    }
  });

  it('renders each payload alone as inert text, at every streamed length', () => {
    for (const [payload, visible] of HOSTILE) {
      const { container, rerender, unmount } = show('', true);
      for (let end = 1; end <= payload.length; end += 1) {
        void rerender({ text: payload.slice(0, end), streaming: true });
        assertInert(container);
      }
      void rerender({ text: payload, streaming: false });
      assertInert(container);
      expect(container.textContent).toContain(visible);
      unmount();
    }
  });

  it('survives nesting deep enough to overflow a recursive renderer, showing the text', () => {
    const nested: [text: string, visible: string][] = [
      [`${'>'.repeat(5000)} deep quote`, 'deep quote'],
      [
        Array.from({ length: 150 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n'),
        'item 149',
      ],
      [`${'*'.repeat(5000)}stars${'*'.repeat(5000)}`, 'stars'],
      [`${'['.repeat(300)}x${'](https://a.example)'.repeat(300)}`, '[[[x]'],
    ];
    for (const [text, visible] of nested) {
      const { container, unmount } = show(text);
      assertInert(container);
      expect(container.textContent).toContain(visible);
      unmount();
    }
  });

  it('opens a safe link through the callback without navigating', () => {
    const { container, onopenlink } = show('See [the docs](https://example.com/docs).');
    const link = container.querySelector('a');
    expect(link).toHaveAttribute('href', 'https://example.com/docs');
    expect(link).toHaveAttribute('rel', 'noreferrer noopener');
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    link?.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(clicks.every((event) => event.defaultPrevented)).toBe(true);
    expect(onopenlink).toHaveBeenCalledExactlyOnceWith('https://example.com/docs');
  });

  it('does not open (or navigate to) a blocked link', async () => {
    for (const text of ['[click](javascript:alert(1))', '[click](data:text/html,x)']) {
      const { container, onopenlink, getByText, unmount } = show(text);
      expect(container.querySelector('a')).toBeNull();
      const blocked = getByText('click');
      expect(blocked.tagName).toBe('SPAN');
      expect(blocked.title).toMatch(/blocked/i);
      await fireEvent.click(blocked);
      expect(onopenlink).not.toHaveBeenCalled();
      unmount();
    }
  });

  it('shows an image as a button that opens it, never loading it', async () => {
    const { container, onopenlink, getByRole } = show('![chart](https://example.com/c.png)');
    expect(container.querySelector('img')).toBeNull();
    const button = getByRole('button', { name: /open image chart/i });
    expect(button).toHaveTextContent('[image: chart]');
    expect(button).toHaveAttribute('type', 'button');
    await fireEvent.click(button);
    expect(onopenlink).toHaveBeenCalledExactlyOnceWith('https://example.com/c.png');
  });

  it('opens only the link when an image sits inside one', async () => {
    const { container, onopenlink } = show(
      '[![logo](https://example.com/l.png)](https://x.example/)',
    );
    expect(container.querySelector('a button')).toBeNull();
    await fireEvent.click(container.querySelector('a') as HTMLElement);
    expect(onopenlink).toHaveBeenCalledExactlyOnceWith('https://x.example/');
  });
});

describe('rendering', () => {
  it('renders headings, emphasis, lists, tables and code as elements', () => {
    const { container } = show(
      [
        '# Title',
        '###### Small',
        'Some **bold**, _em_, ~~gone~~ and `x &amp; y`,\\\nthen A &amp; B &copy; \\*not em\\*.',
        '1. first\n2. second',
        '3) three\n4) four',
        '- [x] done\n- [ ] todo',
        '> quoted',
        '| a | b |\n|---|:-:|\n| 1 | 2 |',
        '***',
      ].join('\n\n'),
    );
    expect(container.querySelector('h1')).toHaveTextContent('Title');
    expect(container.querySelector('h6')).toHaveTextContent('Small');
    expect(container.querySelector('strong')).toHaveTextContent('bold');
    expect(container.querySelector('em')).toHaveTextContent('em');
    expect(container.querySelector('del')).toHaveTextContent('gone');
    // A code span shows its text as written; entities in text are decoded.
    expect(container.querySelector('p code')).toHaveTextContent('x &amp; y');
    expect(container.querySelector('br')).not.toBeNull();
    expect(container.textContent).toContain('A & B © *not em*.');
    expect(container.querySelectorAll('ol')[0]).not.toHaveAttribute('start');
    expect(container.querySelectorAll('ol')[1]).toHaveAttribute('start', '3');
    const boxes = container.querySelectorAll<HTMLInputElement>('input[type=checkbox]');
    expect([...boxes].map((box) => [box.checked, box.disabled])).toEqual([
      [true, true],
      [false, true],
    ]);
    expect(container.querySelector('blockquote')).toHaveTextContent('quoted');
    expect(container.querySelectorAll('th')).toHaveLength(2);
    expect(container.querySelectorAll('td')[1]).toHaveClass('center');
    expect(container.querySelector('hr')).not.toBeNull();
    assertInert(container);
  });

  it('keeps the spacing between inline elements as written', () => {
    const { container } = show('a **b** c\n\n**d**e`f`g[h](https://h.example)i');
    const [first, second] = container.querySelectorAll('p');
    expect(first.textContent).toBe('a b c');
    expect(second.textContent).toBe('defghi');
  });

  it('renders a loose task list with one checkbox per item', () => {
    const { container } = show('- [x] done\n\n- [ ] todo');
    expect(container.querySelectorAll('input[type=checkbox]')).toHaveLength(2);
    expect(container.textContent).not.toContain('[x]');
  });

  it('highlights a closed rust fence with highlight.js classes, as spans only', () => {
    const { container, getByTestId } = show('```rust\nfn main() { let x = "hi"; }\n```');
    expect(getByTestId('code-block')).toHaveTextContent('rust');
    expect(container.querySelector('.hljs-keyword')).toHaveTextContent('fn');
    expect(container.querySelector('.hljs-string')).toHaveTextContent('"hi"');
    const code = container.querySelector('pre code') as HTMLElement;
    expect(code.textContent).toBe('fn main() { let x = "hi"; }');
    for (const element of code.querySelectorAll('*')) {
      expect(element.tagName).toBe('SPAN');
      expect([...element.attributes].map((attribute) => attribute.name)).toEqual(['class']);
    }
  });

  it('never guesses a language', () => {
    const { container } = show('```\nfn main() {}\n```\n\n```nosuchlang\nfn main() {}\n```');
    expect(container.querySelector('[class^=hljs-]')).toBeNull();
    expect(container.querySelectorAll('pre code')[1]).toHaveTextContent('fn main() {}');
  });

  it('shows an unclosed fence as plain text while streaming, highlighted once closed', async () => {
    const { container, rerender } = show('```rust\nfn main() {', true);
    expect(container.querySelector('pre')).toHaveTextContent('fn main() {');
    expect(container.querySelector('.hljs-keyword')).toBeNull();
    const block = container.querySelector('[data-testid=code-block]');
    await rerender({ text: '```rust\nfn main() {}\n```', streaming: true });
    expect(container.querySelector('.hljs-keyword')).toHaveTextContent('fn');
    expect(container.querySelector('[data-testid=code-block]')).toBe(block);
  });

  it('copies code and says so', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    try {
      const { getByTestId } = show('```sh\necho hi\n```');
      const copy = getByTestId('copy-code');
      expect(copy).toHaveAttribute('type', 'button');
      expect(copy).toHaveAccessibleName('Copy code');
      await fireEvent.click(copy);
      expect(writeText).toHaveBeenCalledWith('echo hi');
      await vi.waitFor(() => expect(copy).toHaveTextContent('Copied'));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('keeps the DOM of earlier blocks, and of the growing one, while the text streams on', async () => {
    const { container, rerender } = show('First paragraph.\n\nSecond', true);
    const [first, second] = container.querySelectorAll('p');
    await rerender({ text: 'First paragraph.\n\nSecond grows', streaming: true });
    expect(container.querySelectorAll('p')[1]).toBe(second);
    await rerender({ text: 'First paragraph.\n\nSecond grows\n\nThird', streaming: true });
    await rerender({ text: 'First paragraph.\n\nSecond grows\n\nThird.', streaming: false });
    const paragraphs = container.querySelectorAll('p');
    expect(paragraphs).toHaveLength(3);
    expect(paragraphs[0]).toBe(first);
    expect(paragraphs[1]).toBe(second);
    expect(paragraphs[1]).toHaveTextContent('Second grows');
  });
});
