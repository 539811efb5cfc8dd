import { describe, expect, it } from 'vitest';
import type { ElementContent } from 'hast';
import { hastNodes, highlightClasses } from './hast-dom';

function element(tagName: string, className: unknown, children: ElementContent[] = []) {
  return {
    type: 'element' as const,
    tagName,
    properties: { className, onclick: 'alert(1)', style: 'color:red' },
    children,
  } as ElementContent;
}

describe('hast as DOM nodes', () => {
  it('keeps text as text and elements as spans with only their hljs classes', () => {
    const host = document.createElement('code');
    host.append(
      ...hastNodes(
        [
          element('a', ['hljs-keyword', 'evil', 42], [{ type: 'text', value: 'fn' }]),
          { type: 'text', value: ' <img src=x onerror=alert(1)>' },
          element('script', 'hljs-string', [{ type: 'text', value: '"hi"' }]),
        ],
        document,
      ),
    );
    expect(host.textContent).toBe('fn <img src=x onerror=alert(1)>"hi"');
    expect(host.querySelector('img')).toBeNull();
    const spans = [...host.querySelectorAll('*')];
    expect(spans.map((s) => s.tagName)).toEqual(['SPAN', 'SPAN']);
    expect(spans[0].className).toBe('hljs-keyword');
    // A class list that is not a list is no class at all.
    expect(spans[1].className).toBe('');
    for (const span of spans) {
      expect([...span.attributes].map((a) => a.name)).toEqual(['class']);
    }
  });

  it('drops what is neither text nor an element', () => {
    const comment = { type: 'comment', value: 'x' } as unknown as ElementContent;
    expect(hastNodes([comment], document)).toEqual([]);
    expect(highlightClasses(comment)).toBe('');
  });
});
