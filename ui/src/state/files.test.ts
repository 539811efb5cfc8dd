import { describe, expect, it } from 'vitest';
import type { FileChange, FileNode, SessionTreeView, TreeNodeView } from '../ipc/wire';
import {
  binaryNote,
  branchNodes,
  changedFiles,
  fileRows,
  foldersOf,
  formatSize,
  languageOfFile,
  NO_CHANGES,
  treeMove,
  type FolderState,
} from './files';

function change(path: string, status: FileChange['status'] = 'modified'): FileChange {
  return { path, old_path: null, status, added: 1, removed: 0, binary: false };
}

function node(id: string, parent: string | null, files: FileChange[] = []): TreeNodeView {
  return {
    id,
    parent_id: parent,
    kind: 'assistant',
    first_line: id,
    label: null,
    aborted: false,
    tokens: 0,
    cost: 0,
    files,
  };
}

function entry(path: string, isDir = false, ignored = false): FileNode {
  return { path, name: path.split('/').pop() ?? path, is_dir: isDir, ignored, size: 10 };
}

function loaded(...entries: FileNode[]): FolderState {
  return { kind: 'loaded', entries, truncated: false };
}

// r ── a (src/main.rs) ── b (src/lib.rs, README.md)   ← the leaf
//   └─ c (docs/guide.md): another branch
const TREE: SessionTreeView = {
  session_id: 's1',
  leaf_id: 'b',
  nodes: [
    node('r', null),
    node('a', 'r', [change('src/main.rs')]),
    node('b', 'a', [change('src/deep/lib.rs', 'added'), change('README.md')]),
    node('c', 'r', [change('docs/guide.md')]),
  ],
};

describe('the files the shown branch changed', () => {
  it('walks from the root to the leaf only', () => {
    expect(branchNodes(TREE).map((n) => n.id)).toEqual(['r', 'a', 'b']);
    expect(branchNodes({ ...TREE, leaf_id: 'c' }).map((n) => n.id)).toEqual(['r', 'c']);
    expect(branchNodes({ ...TREE, leaf_id: null })).toEqual([]);
  });

  it('marks the files and every folder holding one', () => {
    const changed = changedFiles(TREE);
    expect([...changed.files].sort()).toEqual(['README.md', 'src/deep/lib.rs', 'src/main.rs']);
    expect([...changed.folders].sort()).toEqual(['src', 'src/deep']);
    expect(changed.files.has('docs/guide.md')).toBe(false);
    expect(changedFiles(null)).toBe(NO_CHANGES);
    expect(changedFiles({ ...TREE, leaf_id: 'r' })).toBe(NO_CHANGES);
  });

  it('never loops on a broken parent chain', () => {
    const looped: SessionTreeView = {
      session_id: 's',
      leaf_id: 'x',
      nodes: [node('x', 'y'), node('y', 'x')],
    };
    expect(branchNodes(looped).map((n) => n.id)).toEqual(['y', 'x']);
  });

  it('names the folders of a path', () => {
    expect(foldersOf('a/b/c.rs')).toEqual(['a', 'a/b']);
    expect(foldersOf('top.rs')).toEqual([]);
  });
});

describe('the rows of the tree', () => {
  const folders = new Map<string, FolderState>([
    ['', loaded(entry('src', true), entry('target', true, true), entry('README.md'))],
    ['src', loaded(entry('src/deep', true), entry('src/main.rs'))],
    ['src/deep', { kind: 'loading' }],
  ]);

  it('shows open folders below their own row, with levels and places', () => {
    const rows = fileRows(folders, new Set(['src']), changedFiles(TREE));
    expect(rows.map((row) => [row.node.path, row.level, row.posinset, row.setsize])).toEqual([
      ['src', 1, 1, 3],
      ['src/deep', 2, 1, 2],
      ['src/main.rs', 2, 2, 2],
      ['target', 1, 2, 3],
      ['README.md', 1, 3, 3],
    ]);
    expect(rows.map((row) => row.changed)).toEqual([true, true, true, false, true]);
    expect(rows[1].parent).toBe('src');
    expect(rows[0].parent).toBeNull();
    expect(rows[0].expanded).toBe(true);
    expect(rows[3].node.ignored).toBe(true);
  });

  it('says an open folder is still being listed', () => {
    const rows = fileRows(folders, new Set(['src', 'src/deep']), NO_CHANGES);
    const deep = rows.find((row) => row.node.path === 'src/deep');
    expect(deep?.expanded).toBe(true);
    expect(deep?.loading).toBe(true);
    expect(rows.every((row) => !row.changed)).toBe(true);
  });

  it('has no rows before the project is listed', () => {
    expect(fileRows(new Map(), new Set(), NO_CHANGES)).toEqual([]);
  });
});

describe('keys in the tree', () => {
  const folders = new Map<string, FolderState>([
    ['', loaded(entry('src', true), entry('README.md'))],
    ['src', loaded(entry('src/main.rs'))],
  ]);
  const closed = fileRows(folders, new Set(), NO_CHANGES);
  const open = fileRows(folders, new Set(['src']), NO_CHANGES);

  it('moves up and down, to the first and the last', () => {
    expect(treeMove(open, 'src', 'ArrowDown')).toEqual({ kind: 'focus', path: 'src/main.rs' });
    expect(treeMove(open, 'src/main.rs', 'ArrowUp')).toEqual({ kind: 'focus', path: 'src' });
    expect(treeMove(open, 'src', 'ArrowUp')).toEqual({ kind: 'none' });
    expect(treeMove(open, 'README.md', 'ArrowDown')).toEqual({ kind: 'none' });
    expect(treeMove(open, 'src/main.rs', 'End')).toEqual({ kind: 'focus', path: 'README.md' });
    expect(treeMove(open, 'README.md', 'Home')).toEqual({ kind: 'focus', path: 'src' });
    expect(treeMove(open, null, 'ArrowDown')).toEqual({ kind: 'focus', path: 'src' });
    expect(treeMove([], null, 'ArrowDown')).toEqual({ kind: 'none' });
  });

  it('opens and closes folders, and goes to a row’s folder', () => {
    expect(treeMove(closed, 'src', 'ArrowRight')).toEqual({ kind: 'expand', path: 'src' });
    expect(treeMove(open, 'src', 'ArrowRight')).toEqual({ kind: 'focus', path: 'src/main.rs' });
    expect(treeMove(open, 'src', 'ArrowLeft')).toEqual({ kind: 'collapse', path: 'src' });
    expect(treeMove(open, 'src/main.rs', 'ArrowLeft')).toEqual({ kind: 'focus', path: 'src' });
    expect(treeMove(open, 'README.md', 'ArrowLeft')).toEqual({ kind: 'none' });
    expect(treeMove(open, 'README.md', 'ArrowRight')).toEqual({ kind: 'none' });
  });

  it('previews a file with Enter, and opens or closes a folder', () => {
    expect(treeMove(open, 'README.md', 'Enter')).toEqual({ kind: 'open', path: 'README.md' });
    expect(treeMove(closed, 'src', 'Enter')).toEqual({ kind: 'expand', path: 'src' });
    expect(treeMove(open, 'src', ' ')).toEqual({ kind: 'collapse', path: 'src' });
    expect(treeMove(open, 'src', 'x')).toEqual({ kind: 'none' });
  });
});

describe('the preview’s words', () => {
  it('highlights by extension or name', () => {
    expect(languageOfFile('src/main.rs')).toBe('rs');
    expect(languageOfFile('ui/App.svelte')).toBe('xml');
    expect(languageOfFile('Cargo.toml')).toBe('ini');
    expect(languageOfFile('Cargo.lock')).toBe('ini');
    expect(languageOfFile('scripts/x.MJS')).toBe('javascript');
    expect(languageOfFile('Makefile')).toBeUndefined();
    expect(languageOfFile('.env')).toBeUndefined();
  });

  it('says sizes and binary files in words', () => {
    expect(formatSize(812)).toBe('812 B');
    expect(formatSize(3482)).toBe('3.4 KB');
    expect(formatSize(12 * 1024)).toBe('12 KB');
    expect(formatSize(1.5 * 1024 * 1024)).toBe('1.5 MB');
    expect(binaryNote(3 * 1024)).toBe('Binary file, 3 KB: no preview');
    expect(binaryNote(10)).toBe('Binary file, 1 KB: no preview');
    expect(binaryNote(2048 * 1024)).toBe('Binary file, 2,048 KB: no preview');
  });
});
