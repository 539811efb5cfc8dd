// Syntax highlighting with lowlight (highlight.js grammars → a hast tree of class-only spans),
// rendered by HastNodes.svelte: no HTML strings and no inline styles, so the strict CSP holds.
import { createLowlight } from 'lowlight';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import type { Root } from 'hast';

const lowlight = createLowlight({
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  ini,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
});
lowlight.registerAlias({
  bash: ['sh', 'shell', 'zsh', 'console'],
  ini: ['toml'],
  javascript: ['js', 'jsx', 'mjs', 'cjs'],
  typescript: ['ts', 'tsx'],
  python: ['py'],
  rust: ['rs'],
  xml: ['html', 'svg', 'xhtml'],
  yaml: ['yml'],
  markdown: ['md'],
  cpp: ['c++', 'hpp', 'cc'],
});

const cache = new Map<string, Root>();
const CACHE_LIMIT = 200;

/** The highlighted tree, or `null` for an unknown language (never auto-detected: too slow). */
export function highlight(code: string, lang: string | undefined): Root | null {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  if (!name || !lowlight.registered(name)) return null;
  const key = `${name}\u0000${code}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const tree = lowlight.highlight(name, code);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, tree);
  return tree;
}
