import { fireEvent, render } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import Markdown from './Markdown.svelte';

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '[x](javascript:alert(1))',
  '[x](JAVASCRIPT:alert(1))',
  '[y]( javascript:alert(1))',
  '<iframe src=https://evil.example></iframe>',
  '<svg onload=alert(1)><circle/></svg>',
  '![a](https://evil.example/x.png)',
  '<a href="javascript:alert(1)">z</a>',
  '[d](data:text/html,<script>alert(1)</script>)',
  'inline <img src=x onerror=alert(2)> html',
  '<object data=x></object><embed src=x>',
].join('\n\n');

function show(text: string, streaming = false) {
  const onopenlink = vi.fn();
  const view = render(Markdown, { text, streaming, onopenlink });
  return { ...view, onopenlink };
}

function assertInert(container: HTMLElement) {
  for (const tag of ['script', 'img', 'iframe', 'svg', 'object', 'embed', 'style', 'form']) {
    expect(container.querySelector(tag), tag).toBeNull();
  }
  for (const element of container.querySelectorAll('*')) {
    for (const attribute of element.attributes) {
      expect(attribute.name.startsWith('on'), `${element.tagName} ${attribute.name}`).toBe(false);
    }
  }
  for (const link of container.querySelectorAll('a')) {
    expect(link.getAttribute('href') ?? '').toMatch(/^https?:/);
  }
}

describe('hostile Markdown', () => {
  it('renders as inert text, finished or streaming', () => {
    for (const streaming of [false, true]) {
      const { container, unmount } = show(HOSTILE, streaming);
      assertInert(container);
      expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
      expect(container.textContent).toContain('<script>alert(1)</script>');
      expect(container.textContent).toContain('<iframe src=https://evil.example></iframe>');
      unmount();
    }
  });

  it('opens a safe link through the callback without navigating', async () => {
    const { container, onopenlink } = show('See [the docs](https://example.com/docs).');
    const link = container.querySelector('a');
    expect(link).not.toBeNull();
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    link?.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(onopenlink).toHaveBeenCalledWith('https://example.com/docs');
  });

  it('does not open a blocked link', async () => {
    const { container, onopenlink, getByText } = show('[click](javascript:alert(1))');
    expect(container.querySelector('a')).toBeNull();
    await fireEvent.click(getByText('click'));
    expect(onopenlink).not.toHaveBeenCalled();
  });

  it('shows an image as a link to it, never loading it', async () => {
    const { container, onopenlink } = show('![chart](https://example.com/c.png)');
    expect(container.querySelector('img')).toBeNull();
    const link = container.querySelector('a');
    expect(link).toHaveTextContent('[image: chart]');
    await fireEvent.click(link as HTMLElement);
    expect(onopenlink).toHaveBeenCalledWith('https://example.com/c.png');
  });
});

describe('rendering', () => {
  it('renders headings, emphasis, lists, tables and highlighted code', () => {
    const { container } = show(
      '# Title\n\nSome **bold** and _em_ and `x < y`.\n\n- [x] done\n- todo\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {}\n```\n\nA &amp; B',
    );
    expect(container.querySelector('h1')).toHaveTextContent('Title');
    expect(container.querySelector('strong')).toHaveTextContent('bold');
    expect(container.querySelector('em')).toHaveTextContent('em');
    expect(container.querySelector('code')).toHaveTextContent('x < y');
    expect(container.querySelector('input[type=checkbox]')).toBeChecked();
    expect(container.querySelectorAll('td')).toHaveLength(2);
    expect(container.querySelector('.hljs-keyword')).toHaveTextContent('fn');
    expect(container.textContent).toContain('A & B');
    for (const element of container.querySelectorAll('*')) {
      expect(element.hasAttribute('style'), element.tagName).toBe(false);
    }
  });

  it('shows an unclosed fence as plain text while streaming', () => {
    const { container } = show('```rust\nfn main() {', true);
    expect(container.querySelector('pre')).toHaveTextContent('fn main() {');
    expect(container.querySelector('.hljs-keyword')).toBeNull();
  });

  it('keeps the DOM of earlier blocks while the text streams on', async () => {
    const { container, rerender } = show('First paragraph.\n\nSecond', true);
    const first = container.querySelector('p');
    await rerender({ text: 'First paragraph.\n\nSecond grows\n\nThird', streaming: true });
    expect(container.querySelector('p')).toBe(first);
    expect(container.querySelectorAll('p')).toHaveLength(3);
  });
});
