// The `edit` tool's unified diff (from `details.diff`, made by `similar` in Rust) as rows with
// old and new line numbers, for a coloured, numbered view.

export type DiffRowKind = 'add' | 'del' | 'context' | 'hunk';

export interface DiffRow {
  kind: DiffRowKind;
  oldLine: number | null;
  newLine: number | null;
  text: string;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

export function parseUnifiedDiff(diff: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const raw of diff.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      rows.push({ kind: 'hunk', oldLine: null, newLine: null, text: line });
      continue;
    }
    // File headers (`--- a/x`, `+++ b/x`) come before the first hunk.
    if (!inHunk) continue;
    if (line.startsWith('+')) {
      rows.push({ kind: 'add', oldLine: null, newLine: newLine++, text: line.slice(1) });
    } else if (line.startsWith('-')) {
      rows.push({ kind: 'del', oldLine: oldLine++, newLine: null, text: line.slice(1) });
    } else if (line.startsWith(' ')) {
      rows.push({ kind: 'context', oldLine: oldLine++, newLine: newLine++, text: line.slice(1) });
    } else if (line.startsWith('\\')) {
      // "\ No newline at end of file": not a line of the file.
      continue;
    }
  }
  return rows;
}
