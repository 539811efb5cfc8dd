import { expect, it } from 'vitest';
import { safeHref } from './links';

it('opens only http and https links', () => {
  expect(safeHref('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
  expect(safeHref('  http://example.com ')).toBe('http://example.com/');
  for (const bad of [
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox',
    'file:///etc/passwd',
    '/relative/path',
    '#anchor',
    'mailto:a@b.c',
    'https://exa\u0000mple.com',
    '',
  ]) {
    expect(safeHref(bad), bad).toBeNull();
  }
});
