// Builds lowlight's hast output as DOM nodes: text nodes, and spans carrying only highlight.js
// classes. Nothing else (no other tags, attributes or styles) can come through, and no HTML
// string is ever parsed. One action per code block instead of a component instance (and its
// reactive bookkeeping) per highlighted token.
import type { ElementContent, RootContent } from 'hast';

export type HastContent = RootContent | ElementContent;

/** The `hljs*` classes of a hast element (anything else is dropped). */
export function highlightClasses(node: HastContent): string {
  if (node.type !== 'element') return '';
  const names = node.properties?.className;
  return Array.isArray(names)
    ? names.filter((name) => typeof name === 'string' && name.startsWith('hljs')).join(' ')
    : '';
}

/** `nodes` as DOM nodes of `document`: text stays text, elements become classed spans. */
export function hastNodes(nodes: HastContent[], document: Document): Node[] {
  const built: Node[] = [];
  for (const node of nodes) {
    if (node.type === 'text') {
      built.push(document.createTextNode(node.value));
    } else if (node.type === 'element') {
      const span = document.createElement('span');
      span.className = highlightClasses(node);
      span.append(...hastNodes(node.children, document));
      built.push(span);
    }
  }
  return built;
}

/** Svelte action: `target`'s children are `nodes`, built again when they change. */
export function hastInto(target: HTMLElement, nodes: HastContent[]) {
  const build = (next: HastContent[]) =>
    target.replaceChildren(...hastNodes(next, target.ownerDocument));
  build(nodes);
  return { update: build };
}
