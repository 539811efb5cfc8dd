// Syntax highlighting with lowlight: highlight.js grammars turn code into a hast tree of spans
// that carry only `hljs-*` classes. `hast-dom.ts` builds the tree as elements, so there is no
// HTML string and no inline style (the CSP allows neither).
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

// Only these grammars are bundled. Their own aliases come with them (rs, ts, tsx, js, py, sh,
// zsh, toml, html, svg, yml, md, patch, golang, jsonc…); `shell` is added.
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
lowlight.registerAlias({ bash: ['shell'] });

/** The grammar a fence's info string names (its first word), if it is bundled. */
export function languageOf(lang: string | undefined): string | null {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  return name && lowlight.registered(name) ? name : null;
}

// Highlighting is the costly part of rendering code, and the same block is rendered again when the
// message completes or is shown again: remember recent results.
const cache = new Map<string, Root>();
const CACHE_LIMIT = 200;

/** The highlighted tree, or `null` for an unknown language (never auto-detected: slow, and wrong). */
export function highlight(code: string, lang: string | undefined): Root | null {
  const name = languageOf(lang);
  if (!name) return null;
  const key = `${name}\u0000${code}`;
  const hit = cache.get(key);
  if (hit) {
    // Most recently used last, so the oldest entry is evicted first.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const tree = lowlight.highlight(name, code);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, tree);
  return tree;
}
