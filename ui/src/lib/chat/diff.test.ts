import { expect, it } from 'vitest';
import { parseUnifiedDiff } from './diff';

const DIFF = `--- a/notes.txt
+++ b/notes.txt
@@ -1,3 +1,3 @@
 first
-hello world
+goodbye world
 last
@@ -10,2 +10,3 @@ fn main
 a
+b
 c
\\ No newline at end of file
`;

it('numbers old and new lines of each hunk', () => {
  const rows = parseUnifiedDiff(DIFF);
  expect(rows.map((r) => [r.kind, r.oldLine, r.newLine, r.text])).toEqual([
    ['hunk', null, null, '@@ -1,3 +1,3 @@'],
    ['context', 1, 1, 'first'],
    ['del', 2, null, 'hello world'],
    ['add', null, 2, 'goodbye world'],
    ['context', 3, 3, 'last'],
    ['hunk', null, null, '@@ -10,2 +10,3 @@ fn main'],
    ['context', 10, 10, 'a'],
    ['add', null, 11, 'b'],
    ['context', 11, 12, 'c'],
  ]);
});

it('shows nothing for an empty or header-only diff', () => {
  expect(parseUnifiedDiff('')).toEqual([]);
  expect(parseUnifiedDiff('--- a/x\n+++ b/x\n')).toEqual([]);
});

it('keeps hostile text as text', () => {
  const rows = parseUnifiedDiff('@@ -1 +1 @@\n-<script>x</script>\n+<img src=x onerror=y>\n');
  expect(rows[1].text).toBe('<script>x</script>');
  expect(rows[2].text).toBe('<img src=x onerror=y>');
});
