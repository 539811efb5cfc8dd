import { describe, expect, it } from 'vitest';
import { safeHref } from './links';

describe('safeHref', () => {
  it('opens http and https links, normalised', () => {
    expect(safeHref('https://example.com/a?b=c#d')).toBe('https://example.com/a?b=c#d');
    expect(safeHref('  http://example.com ')).toBe('http://example.com/');
    expect(safeHref('HTTPS://EXAMPLE.com/Path')).toBe('https://example.com/Path');
    expect(safeHref('https://example.com/a b')).toBe('https://example.com/a%20b');
  });

  it('refuses every other scheme, relative links and obfuscation', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      '\u0001javascript:alert(1)',
      'javascript&#58;alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'DATA:text/html;base64,PHNjcmlwdD4=',
      'vbscript:msgbox',
      'file:///etc/passwd',
      'ftp://example.com',
      'mailto:a@b.c',
      'blob:https://example.com/1',
      '/relative/path',
      '//example.com/protocol-relative',
      'example.com',
      '#anchor',
      '?query',
      'https://exa\u0000mple.com',
      'https://example.com/\u0085',
      'https://user:pass@example.com',
      'https://trusted.example@evil.example',
      'https://',
      '',
      '   ',
    ]) {
      expect(safeHref(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
