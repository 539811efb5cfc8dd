// The tree panel's model, pure: the stored session tree (every node) folded into what a person
// reads — user and assistant turns, compactions and branch summaries; tool results folded into
// the turn that called them; model and thinking changes as markers on the turn after them —
// with the current path marked, long single-child runs collapsed into one segment, and a tidy
// tree layout (d3-hierarchy's algorithm, in linear time).
import type {
  ChangeStatus,
  FileChange,
  NodeKind,
  SessionTreeDelta,
  SessionTreeView,
  TreeNodeView,
} from '../ipc/wire';

/** A file a turn changed: its stored nodes' changes to one path, summed. */
export interface TurnFile {
  path: string;
  /** A renamed file's path before (its first rename in the turn). */
  oldPath: string | null;
  status: ChangeStatus;
  added: number;
  removed: number;
}

export type TurnKind = 'user' | 'assistant' | 'compaction' | 'branch_summary';

export interface TurnNode {
  /** The stored node's id (a run segment: `run:` + its first hidden turn's id). */
  id: string;
  kind: TurnKind | 'run';
  firstLine: string;
  label: string | null;
  aborted: boolean;
  /** Model or thinking changes just before this turn. */
  markers: string[];
  /** Tool results folded into this (assistant) turn. */
  toolResults: number;
  /** On the path from the root to the current leaf. */
  onPath: boolean;
  /** The turn the conversation continues from. */
  current: boolean;
  /** A turn without children: the end of a branch. */
  leaf: boolean;
  /** Hidden turns a run segment stands for. */
  count: number;
  /** Tokens and US dollars of this turn, and of the branch from the root down to it. */
  tokens: number;
  cost: number;
  branchTokens: number;
  branchCost: number;
  /** The files its stored nodes (its tool results too) changed, one entry per path. */
  files: readonly TurnFile[];
  children: TurnNode[];
  parent: TurnNode | null;
}

const TURN_KINDS = new Set<NodeKind>(['user', 'assistant', 'compaction', 'branch_summary']);
/** Runs with more hidden turns than this collapse (the first and last turn stay visible). */
export const RUN_MIN = 4;

function isTurn(node: TreeNodeView): boolean {
  return TURN_KINDS.has(node.kind);
}

function markerOf(node: TreeNodeView): string | null {
  if (node.kind === 'model_change') return `model: ${node.first_line}`;
  if (node.kind === 'thinking_level_change') return `thinking: ${node.first_line}`;
  return null;
}

/**
 * `tree` with the nodes stored since it was read (`delta`, the nodes from index `delta.from`
 * on) appended and the leaf moved; `null` when the delta is not for this tree (another session,
 * or another count of known nodes): read the whole tree then. No new node and the same leaf
 * give `tree` itself.
 */
export function mergeDelta(tree: SessionTreeView, delta: SessionTreeDelta): SessionTreeView | null {
  if (delta.session_id !== tree.session_id || delta.from !== tree.nodes.length) return null;
  if (delta.nodes.length === 0 && delta.leaf_id === tree.leaf_id) return tree;
  return {
    session_id: tree.session_id,
    leaf_id: delta.leaf_id,
    nodes: delta.nodes.length === 0 ? tree.nodes : [...tree.nodes, ...delta.nodes],
  };
}

/** No files: shared by every turn without changes (most of a long tree). */
const NO_FILES: readonly TurnFile[] = Object.freeze([]);

/** `into` with `changes` added: one entry per path, lines summed; a file added then changed
 * stays added, otherwise the latest status wins. */
function addFiles(into: Map<string, TurnFile>, changes: readonly (FileChange | TurnFile)[]) {
  for (const change of changes) {
    const oldPath = 'old_path' in change ? change.old_path : change.oldPath;
    const known = into.get(change.path);
    if (!known) {
      into.set(change.path, {
        path: change.path,
        oldPath,
        status: change.status,
        added: change.added,
        removed: change.removed,
      });
      continue;
    }
    known.added += change.added;
    known.removed += change.removed;
    known.oldPath ??= oldPath;
    if (!(known.status === 'added' && change.status !== 'deleted')) known.status = change.status;
  }
}

/** The union of several turns' or nodes' files, by path (sorted). */
export function unionFiles(lists: readonly (readonly (FileChange | TurnFile)[])[]): TurnFile[] {
  const union = new Map<string, TurnFile>();
  for (const list of lists) if (list.length > 0) addFiles(union, list);
  return [...union.values()].sort(byPath);
}

function byPath(a: TurnFile, b: TurnFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** How many paths a badge lists before "and N more". */
export const FILES_LISTED = 8;

/** The badge's words: "3 files changed: a, b, c" (long lists cut, with how many more). */
export function filesSummary(files: readonly TurnFile[]): string {
  const count = `${files.length} ${files.length === 1 ? 'file' : 'files'} changed`;
  if (files.length === 0) return count;
  const listed = files.slice(0, FILES_LISTED).map((file) => file.path);
  const more = files.length - listed.length;
  return `${count}: ${listed.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

/** Folds the stored nodes into turns (no collapsing yet). */
export function buildTurns(view: SessionTreeView): TurnNode[] {
  const byId = new Map(view.nodes.map((node) => [node.id, node]));
  const onPathIds = new Set<string>();
  for (let id = view.leaf_id; id; id = byId.get(id)?.parent_id ?? null) onPathIds.add(id);
  const turns = new Map<string, TurnNode>();
  const roots: TurnNode[] = [];
  // The turn a stored node belongs to (itself, or the nearest turn above it).
  const turnOf = new Map<string, TurnNode | null>();
  const pendingMarkers = new Map<string, string[]>();
  // The files of the turns that changed any (most turns change none: no map for them).
  const filesOf = new Map<TurnNode, Map<string, TurnFile>>();
  const record = (turn: TurnNode | null, node: TreeNodeView) => {
    if (!turn || !node.files || node.files.length === 0) return;
    let files = filesOf.get(turn);
    if (!files) filesOf.set(turn, (files = new Map()));
    addFiles(files, node.files);
  };
  for (const node of view.nodes) {
    const parentTurn = node.parent_id ? (turnOf.get(node.parent_id) ?? null) : null;
    const inherited = node.parent_id ? (pendingMarkers.get(node.parent_id) ?? []) : [];
    if (!isTurn(node)) {
      turnOf.set(node.id, parentTurn);
      record(parentTurn, node);
      const marker = markerOf(node);
      pendingMarkers.set(node.id, marker ? [...inherited, marker] : inherited);
      if (node.kind === 'tool_result' && parentTurn) parentTurn.toolResults += 1;
      continue;
    }
    const branchTokens = (parentTurn?.branchTokens ?? 0) + node.tokens;
    const branchCost = (parentTurn?.branchCost ?? 0) + node.cost;
    const turn: TurnNode = {
      id: node.id,
      kind: node.kind as TurnKind,
      firstLine: node.first_line,
      label: node.label,
      aborted: node.aborted,
      markers: inherited,
      toolResults: 0,
      onPath: onPathIds.has(node.id),
      current: false,
      leaf: true,
      count: 0,
      tokens: node.tokens,
      cost: node.cost,
      branchTokens,
      branchCost,
      files: NO_FILES,
      children: [],
      parent: parentTurn,
    };
    record(turn, node);
    turns.set(node.id, turn);
    turnOf.set(node.id, turn);
    pendingMarkers.set(node.id, []);
    if (parentTurn) {
      parentTurn.children.push(turn);
      parentTurn.leaf = false;
    } else {
      roots.push(turn);
    }
  }
  const currentTurn = view.leaf_id ? turnOf.get(view.leaf_id) : null;
  if (currentTurn) currentTurn.current = true;
  for (const [turn, files] of filesOf) turn.files = [...files.values()].sort(byPath);
  return roots;
}

/**
 * Collapses long single-child runs: a chain of turns with one child each, none of them current,
 * labelled or a branch point, keeps its first and last turn, and the ones between become one
 * segment with their count — unless its id is in `expanded`.
 */
export function collapseRuns(roots: TurnNode[], expanded: ReadonlySet<string>): TurnNode[] {
  const plain = (turn: TurnNode) =>
    turn.children.length === 1 && !turn.current && turn.label === null;
  const visit = (turn: TurnNode): TurnNode => {
    // Starting below `turn`, gather the plain chain.
    const chain: TurnNode[] = [];
    let next = turn.children.length === 1 ? turn.children[0] : null;
    while (next && plain(next)) {
      chain.push(next);
      next = next.children[0] ?? null;
    }
    if (chain.length > RUN_MIN && next) {
      const id = `run:${chain[0].id}`;
      if (!expanded.has(id)) {
        const copy: TurnNode = { ...turn, children: [] };
        const segment: TurnNode = {
          id,
          kind: 'run',
          firstLine: `${chain.length} turns`,
          label: null,
          aborted: false,
          markers: [],
          toolResults: 0,
          onPath: chain.some((t) => t.onPath),
          current: false,
          leaf: false,
          count: chain.length,
          tokens: chain.reduce((sum, t) => sum + t.tokens, 0),
          cost: chain.reduce((sum, t) => sum + t.cost, 0),
          branchTokens: chain[chain.length - 1].branchTokens,
          branchCost: chain[chain.length - 1].branchCost,
          files: chain.some((t) => t.files.length > 0)
            ? unionFiles(chain.map((t) => t.files))
            : NO_FILES,
          children: [],
          parent: copy,
        };
        const rest = visit(next);
        rest.parent = segment;
        segment.children = [rest];
        copy.children = [segment];
        return copy;
      }
      // Expanded: the whole chain shows, and nothing inside it collapses again.
      const copy: TurnNode = { ...turn, children: [] };
      let tail = copy;
      for (const link of chain) {
        const shown: TurnNode = { ...link, children: [], parent: tail };
        tail.children = [shown];
        tail = shown;
      }
      const rest = visit(next);
      rest.parent = tail;
      tail.children = [rest];
      return copy;
    }
    const copy: TurnNode = { ...turn, children: [] };
    copy.children = turn.children.map((child) => {
      const shown = visit(child);
      shown.parent = copy;
      return shown;
    });
    return copy;
  };
  return roots.map((root) => {
    const shown = visit(root);
    shown.parent = null;
    return shown;
  });
}

/** Where a node sits (its centre) in the layout's coordinates. */
export interface Placed {
  node: TurnNode;
  x: number;
  y: number;
  depth: number;
}

export interface Layout {
  nodes: Placed[];
  edges: { from: Placed; to: Placed }[];
  /** Bounding box of the node centres. */
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 44;
export const GAP_X = 20;
export const GAP_Y = 26;

/** From one column to the next, and from one row to the next. */
const SLOT = NODE_WIDTH + GAP_X;
const ROW = NODE_HEIGHT + GAP_Y;

/**
 * A tidy top-down layout of `roots`: Reingold–Tilford, in Buchheim, Jünger and Leipert's linear
 * time (the algorithm of d3-hierarchy's `tree()`, which it matches node for node), with every
 * pair of neighbours on a row one slot (`NODE_WIDTH + GAP_X`) apart.
 *
 * - The roots (several first turns when the first message was edited) hang under a hidden root,
 *   so they are siblings like any others.
 * - One slot between neighbours, siblings or not: d3's default keeps turns of different parents
 *   two slots apart, which pushed whole subtrees — the two first turns of a tree branched at its
 *   root — twice as far apart as their rows need, and made Fit shrink a small tree past reading.
 *   Siblings whose subtrees do not widen below them sit side by side at any depth.
 * - Linear and without recursion, also for a 10,000-turn chain: d3's `hierarchy()` (which
 *   `tree()` needs) computes each node's height by walking up to the root, quadratic on a deep
 *   chain (over 100 ms for 10,000 turns; this takes a few).
 *
 * `nodes` come breadth first (a row after the other, left to right), `edges` in the same order.
 */
export function layoutTurns(roots: TurnNode[]): Layout {
  // Number the turns breadth first under the hidden root 0: the children of `v` are the
  // consecutive numbers `first[v]` to `first[v] + count[v] - 1`.
  const turns: (TurnNode | null)[] = [null];
  const parent: number[] = [-1];
  const depth: number[] = [0];
  const first: number[] = [];
  const count: number[] = [];
  for (let v = 0; v < turns.length; v++) {
    const children = v === 0 ? roots : (turns[v] as TurnNode).children;
    first.push(turns.length);
    count.push(children.length);
    for (const child of children) {
      turns.push(child);
      parent.push(v);
      depth.push(depth[v] + 1);
    }
  }
  const n = turns.length;
  // Buchheim et al.'s fields, in slots: prelim, modifier, change, shift, thread, ancestor, and
  // the default ancestor of each node's children (-1: none).
  const prelim = new Float64Array(n);
  const mod = new Float64Array(n);
  const change = new Float64Array(n);
  const shift = new Float64Array(n);
  const thread = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n);
  for (let v = 0; v < n; v++) ancestor[v] = v;
  const defaultAncestor = new Int32Array(n).fill(-1);

  const nextLeft = (v: number) => (count[v] > 0 ? first[v] : thread[v]);
  const nextRight = (v: number) => (count[v] > 0 ? first[v] + count[v] - 1 : thread[v]);

  // Shifts the subtree of `wp` right by `by`, spreading it over the siblings from `wm`.
  const moveSubtree = (wm: number, wp: number, by: number) => {
    const spread = by / (wp - wm);
    change[wp] -= spread;
    shift[wp] += by;
    change[wm] += spread;
    prelim[wp] += by;
    mod[wp] += by;
  };

  // Applies the shifts of `v`'s children gathered by `moveSubtree`.
  const executeShifts = (v: number) => {
    let total = 0;
    let spread = 0;
    for (let w = first[v] + count[v] - 1; w >= first[v]; w--) {
      prelim[w] += total;
      mod[w] += total;
      spread += change[w];
      total += shift[w] + spread;
    }
  };

  // Places `v`'s subtree against the subtrees of its left siblings (`w` the nearest one) along
  // their facing contours, threading the contours on; answers the new default ancestor.
  const apportion = (v: number, w: number, defaultOf: number): number => {
    if (w < 0) return defaultOf;
    let vip = v;
    let vop = v;
    let vim = w;
    let vom = first[parent[v]];
    let sip = mod[vip];
    let sop = mod[vop];
    let sim = mod[vim];
    let som = mod[vom];
    for (;;) {
      vim = nextRight(vim);
      vip = nextLeft(vip);
      if (vim < 0 || vip < 0) break;
      vom = nextLeft(vom);
      vop = nextRight(vop);
      ancestor[vop] = v;
      const by = prelim[vim] + sim - prelim[vip] - sip + 1;
      if (by > 0) {
        const from = parent[ancestor[vim]] === parent[v] ? ancestor[vim] : defaultOf;
        moveSubtree(from, v, by);
        sip += by;
        sop += by;
      }
      sim += mod[vim];
      sip += mod[vip];
      som += mod[vom];
      sop += mod[vop];
    }
    if (vim >= 0 && nextRight(vop) < 0) {
      thread[vop] = vim;
      mod[vop] += sim - sop;
    }
    if (vip >= 0 && nextLeft(vom) < 0) {
      thread[vom] = vip;
      mod[vom] += sip - som;
      return v;
    }
    return defaultOf;
  };

  // First walk, children before parents and left siblings before right ones: the order of a
  // depth-first walk that goes right first, reversed.
  const order = new Int32Array(n);
  const stack = new Int32Array(n);
  let size = 0;
  let walked = 0;
  stack[size++] = 0;
  while (size > 0) {
    const v = stack[--size];
    order[walked++] = v;
    for (let c = first[v]; c < first[v] + count[v]; c++) stack[size++] = c;
  }
  for (let i = n - 1; i >= 0; i--) {
    const v = order[i];
    const p = parent[v];
    const w = p >= 0 && v > first[p] ? v - 1 : -1;
    if (count[v] > 0) {
      executeShifts(v);
      const midpoint = (prelim[first[v]] + prelim[first[v] + count[v] - 1]) / 2;
      if (w >= 0) {
        prelim[v] = prelim[w] + 1;
        mod[v] = prelim[v] - midpoint;
      } else {
        prelim[v] = midpoint;
      }
    } else if (w >= 0) {
      prelim[v] = prelim[w] + 1;
    }
    if (p >= 0) {
      defaultAncestor[p] = apportion(v, w, defaultAncestor[p] >= 0 ? defaultAncestor[p] : first[p]);
    }
  }

  // Second walk, parents first (breadth first is): the modifiers summed down; the hidden root
  // at 0. Then slots and rows become coordinates, the hidden root's row dropped.
  const nodes: Placed[] = [];
  const edges: Layout['edges'] = [];
  let minX = Infinity;
  let maxX = -Infinity;
  let maxY = 0;
  for (let v = 0; v < n; v++) {
    const above = v === 0 ? -prelim[0] : mod[parent[v]];
    const x = prelim[v] + above;
    mod[v] += above;
    if (v === 0) continue;
    const item: Placed = {
      node: turns[v] as TurnNode,
      x: x * SLOT,
      y: (depth[v] - 1) * ROW,
      depth: depth[v] - 1,
    };
    nodes.push(item);
    if (parent[v] > 0) edges.push({ from: nodes[parent[v] - 1], to: item });
    minX = Math.min(minX, item.x);
    maxX = Math.max(maxX, item.x);
    maxY = Math.max(maxY, item.y);
  }
  if (nodes.length === 0) return { nodes, edges, minX: 0, maxX: 0, minY: 0, maxY: 0 };
  return { nodes, edges, minX, maxX, minY: 0, maxY };
}

/** The neighbour an arrow key moves to: up = parent, down = first child, left/right = sibling. */
export function neighbour(
  node: TurnNode,
  key: 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight',
  roots: TurnNode[],
): TurnNode | null {
  if (key === 'ArrowUp') return node.parent;
  if (key === 'ArrowDown') {
    return node.children.find((c) => c.onPath) ?? node.children[0] ?? null;
  }
  const siblings = node.parent ? node.parent.children : roots;
  const at = siblings.indexOf(node);
  const step = key === 'ArrowLeft' ? -1 : 1;
  return siblings[at + step] ?? null;
}

/**
 * The last stored node of the turn `id`: below it, the tool results it folds in (a single chain
 * of them), so that a branch ending at the turn includes what its tools answered.
 */
export function turnEnd(view: SessionTreeView, id: string): string {
  const children = new Map<string, TreeNodeView[]>();
  for (const node of view.nodes) {
    if (!node.parent_id) continue;
    const list = children.get(node.parent_id);
    if (list) list.push(node);
    else children.set(node.parent_id, [node]);
  }
  let end = id;
  for (;;) {
    const below = children.get(end) ?? [];
    if (below.length !== 1 || below[0].kind !== 'tool_result') return end;
    end = below[0].id;
  }
}

/**
 * Whether going from the leaf `oldLeaf` to `newLeaf` left a branch behind: neither lies on the
 * other's path from the root (going down or up the same branch leaves nothing).
 */
export function leftBranch(
  view: SessionTreeView,
  oldLeaf: string | null,
  newLeaf: string | null,
): boolean {
  if (!oldLeaf || !newLeaf || oldLeaf === newLeaf) return false;
  const parents = new Map(view.nodes.map((node) => [node.id, node.parent_id]));
  if (!parents.has(oldLeaf) || !parents.has(newLeaf)) return false;
  const above = (from: string, target: string) => {
    for (let id: string | null = from; id; id = parents.get(id) ?? null) {
      if (id === target) return true;
    }
    return false;
  };
  return !above(newLeaf, oldLeaf) && !above(oldLeaf, newLeaf);
}

/** Shortens a first line to fit a node. */
export function shorten(text: string, max = 26): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The pan and zoom of the panel: screen = layout × k + (x, y). */
export interface Viewport {
  x: number;
  y: number;
  k: number;
}

/**
 * Only what can be seen (with a margin of one node) goes into the DOM: a 10,000-node tree draws
 * the few dozen nodes on screen, not all of them. An edge shows when either end does.
 */
export function visiblePart(
  layout: Layout,
  view: Viewport,
  width: number,
  height: number,
): { nodes: Placed[]; edges: Layout['edges'] } {
  if (width === 0 || height === 0) return { nodes: layout.nodes, edges: layout.edges };
  const left = -view.x / view.k - NODE_WIDTH;
  const right = (width - view.x) / view.k + NODE_WIDTH;
  const top = -view.y / view.k - NODE_HEIGHT;
  const bottom = (height - view.y) / view.k + NODE_HEIGHT;
  const inside = (p: Placed) => p.x >= left && p.x <= right && p.y >= top && p.y <= bottom;
  return {
    nodes: layout.nodes.filter(inside),
    edges: layout.edges.filter((edge) => inside(edge.from) || inside(edge.to)),
  };
}
