import { describe, expect, it } from 'vitest';
import { highlight, languageOf } from './highlight';

describe('highlight', () => {
  it('knows the bundled grammars by name and by alias, from the first word of the info string', () => {
    for (const [fence, name] of [
      ['rust', 'rust'],
      ['rs', 'rs'],
      ['TypeScript', 'typescript'],
      ['tsx', 'tsx'],
      ['shell', 'shell'],
      ['sh', 'sh'],
      ['toml', 'toml'],
      ['html', 'html'],
      ['yml', 'yml'],
      ['python title="x.py"', 'python'],
    ]) {
      expect(languageOf(fence), fence).toBe(name);
    }
    for (const fence of [
      undefined,
      '',
      'text',
      'plaintext',
      'haskell',
      'constructor',
      '__proto__',
    ]) {
      expect(languageOf(fence), String(fence)).toBeNull();
    }
  });

  it('returns class-only trees, cached by language and code, and never guesses', () => {
    const tree = highlight('fn main() {}', 'rust');
    expect(JSON.stringify(tree)).toContain('hljs-keyword');
    expect(highlight('fn main() {}', 'rust')).toBe(tree);
    expect(highlight('fn main() {}', 'rs')).not.toBeNull();
    expect(highlight('fn main() {}', undefined)).toBeNull();
    expect(highlight('fn main() {}', 'haskell')).toBeNull();
  });
});
