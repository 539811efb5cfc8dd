// The files panel's model, pure: the project's folders as they were listed (lazily, one folder at
// a time), which are open, and the files the shown branch changed, flattened into the rows of an
// ARIA tree (each row knows its level, its place among its siblings and its parent, so the tree
// can be drawn flat and moved through with the arrow keys); the preview's language, size and
// words.
import type { FileNode, SessionTreeView, TreeNodeView } from '../ipc/wire';

/** One folder of the panel: being listed, listed, or not listable (the error's words). */
export type FolderState =
  | { kind: 'loading' }
  | { kind: 'loaded'; entries: readonly FileNode[]; truncated: boolean }
  | { kind: 'error'; message: string };

/** The files the turns of the shown branch changed, and every folder holding one. */
export interface ChangedFiles {
  files: ReadonlySet<string>;
  folders: ReadonlySet<string>;
}

export const NO_CHANGES: ChangedFiles = { files: new Set(), folders: new Set() };

/** One row of the tree as drawn. */
export interface FileRow {
  node: FileNode;
  /** 1 for the project's own entries (`aria-level`). */
  level: number;
  /** Its place among its folder's entries, from 1, and how many there are. */
  posinset: number;
  setsize: number;
  /** The folder it is in (`null`: the project itself). */
  parent: string | null;
  /** A folder shown open. */
  expanded: boolean;
  /** A folder open and still being listed. */
  loading: boolean;
  /** A file the branch changed, or a folder holding one. */
  changed: boolean;
}

/** The nodes from the root to the leaf of the shown branch (root first). */
export function branchNodes(tree: SessionTreeView): TreeNodeView[] {
  if (tree.leaf_id === null) return [];
  const byId = new Map(tree.nodes.map((node) => [node.id, node]));
  const path: TreeNodeView[] = [];
  const seen = new Set<string>();
  let id: string | null = tree.leaf_id;
  while (id !== null && !seen.has(id)) {
    seen.add(id);
    const node = byId.get(id);
    if (!node) break;
    path.push(node);
    id = node.parent_id;
  }
  return path.reverse();
}

/** The folders `path` is in, innermost last (`a/b/c.rs` → `a`, `a/b`). */
export function foldersOf(path: string): string[] {
  const parts = path.split('/');
  const folders: string[] = [];
  for (let i = 1; i < parts.length; i++) folders.push(parts.slice(0, i).join('/'));
  return folders;
}

/** The files the turns of the shown branch changed (a renamed file under its new name). */
export function changedFiles(tree: SessionTreeView | null): ChangedFiles {
  if (!tree) return NO_CHANGES;
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const node of branchNodes(tree)) {
    for (const change of node.files) {
      files.add(change.path);
      for (const folder of foldersOf(change.path)) folders.add(folder);
    }
  }
  return files.size === 0 ? NO_CHANGES : { files, folders };
}

/** Whether the row of `node` is marked as changed. */
export function isChanged(node: FileNode, changed: ChangedFiles): boolean {
  return node.is_dir ? changed.folders.has(node.path) : changed.files.has(node.path);
}

/** The rows of the tree: the project's entries, and those of every open folder below its own. */
export function fileRows(
  folders: ReadonlyMap<string, FolderState>,
  expanded: ReadonlySet<string>,
  changed: ChangedFiles,
): FileRow[] {
  const rows: FileRow[] = [];
  const add = (folder: string, level: number) => {
    const state = folders.get(folder);
    if (state?.kind !== 'loaded') return;
    const { entries } = state;
    entries.forEach((node, index) => {
      const open = node.is_dir && expanded.has(node.path);
      const listing = open ? folders.get(node.path) : undefined;
      rows.push({
        node,
        level,
        posinset: index + 1,
        setsize: entries.length,
        parent: folder === '' ? null : folder,
        expanded: open,
        loading: open && (listing === undefined || listing.kind === 'loading'),
        changed: isChanged(node, changed),
      });
      if (open) add(node.path, level + 1);
    });
  };
  add('', 1);
  return rows;
}

/** What a key does in the tree (WAI-ARIA's tree view pattern). */
export type TreeMove =
  | { kind: 'none' }
  | { kind: 'focus'; path: string }
  | { kind: 'expand'; path: string }
  | { kind: 'collapse'; path: string }
  | { kind: 'open'; path: string };

/**
 * The move `key` makes from the focused row (`null`: none yet): ↑/↓ the previous/next row,
 * Home/End the first/last, → opens a closed folder or goes to an open one's first entry, ←
 * closes an open folder or goes to the folder a row is in, Enter (or Space) previews a file and
 * opens or closes a folder.
 */
export function treeMove(rows: readonly FileRow[], focused: string | null, key: string): TreeMove {
  if (rows.length === 0) return { kind: 'none' };
  const at = rows.findIndex((row) => row.node.path === focused);
  const to = (index: number): TreeMove => ({ kind: 'focus', path: rows[index].node.path });
  if (at < 0) {
    // Nothing focused (or it is gone): any move starts at the top.
    return ['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(key)
      ? to(key === 'End' ? rows.length - 1 : 0)
      : { kind: 'none' };
  }
  const row = rows[at];
  const path = row.node.path;
  switch (key) {
    case 'ArrowDown':
      return at + 1 < rows.length ? to(at + 1) : { kind: 'none' };
    case 'ArrowUp':
      return at > 0 ? to(at - 1) : { kind: 'none' };
    case 'Home':
      return to(0);
    case 'End':
      return to(rows.length - 1);
    case 'ArrowRight':
      if (!row.node.is_dir) return { kind: 'none' };
      if (!row.expanded) return { kind: 'expand', path };
      return rows[at + 1]?.parent === path ? to(at + 1) : { kind: 'none' };
    case 'ArrowLeft':
      if (row.node.is_dir && row.expanded) return { kind: 'collapse', path };
      return row.parent === null ? { kind: 'none' } : { kind: 'focus', path: row.parent };
    case 'Enter':
    case ' ':
      if (!row.node.is_dir) return { kind: 'open', path };
      return row.expanded ? { kind: 'collapse', path } : { kind: 'expand', path };
    default:
      return { kind: 'none' };
  }
}

/** Extensions and names highlight.js knows under another name (the rest: the extension). */
const LANGUAGE_OF_EXTENSION: Record<string, string> = {
  cjs: 'javascript',
  mjs: 'javascript',
  cts: 'typescript',
  mts: 'typescript',
  svelte: 'xml',
  vue: 'xml',
  htm: 'xml',
  toml: 'ini',
  cfg: 'ini',
  conf: 'ini',
  jsonl: 'json',
  hh: 'cpp',
  hxx: 'cpp',
  cxx: 'cpp',
};

const LANGUAGE_OF_NAME: Record<string, string> = {
  'cargo.lock': 'ini',
  '.bashrc': 'bash',
  '.profile': 'bash',
  '.zshrc': 'bash',
  '.editorconfig': 'ini',
  '.gitconfig': 'ini',
};

/** The language a file's name suggests for highlighting (unknown: the extension, which
 * `highlight` shows plain when no grammar has it; none: plain text). */
export function languageOfFile(path: string): string | undefined {
  const name = (path.split('/').pop() ?? path).toLowerCase();
  const byName = LANGUAGE_OF_NAME[name];
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const extension = name.slice(dot + 1);
  return LANGUAGE_OF_EXTENSION[extension] ?? extension;
}

/** A size in words: `812 B`, `3.4 KB`, `12 KB`, `1.5 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return `${shown.toLocaleString('en-US')} ${units[unit]}`;
}

/** What the preview says of a binary file. */
export function binaryNote(size: number): string {
  const kilobytes = Math.max(1, Math.round(size / 1024));
  return `Binary file, ${kilobytes.toLocaleString('en-US')} KB: no preview`;
}

/** The last part of a path (its name). */
export function nameOf(path: string): string {
  return path.split('/').pop() || path;
}
