import { expect, it } from 'vitest';
import { snippetParts } from './snippet';

it('splits a snippet into matches and text', () => {
  expect(snippetParts('…the [parser] reads [tokens]')).toEqual([
    { text: '…the ', match: false },
    { text: 'parser', match: true },
    { text: ' reads ', match: false },
    { text: 'tokens', match: true },
  ]);
  expect(snippetParts('')).toEqual([]);
  expect(snippetParts('no match')).toEqual([{ text: 'no match', match: false }]);
});

it('keeps hostile text as text', () => {
  const parts = snippetParts('<img src=x onerror=alert(1)> [<b>]');
  expect(parts[0].text).toBe('<img src=x onerror=alert(1)> ');
  expect(parts[1]).toEqual({ text: '<b>', match: true });
});
