// Growing the tree panel's layout as nodes are appended, without laying the whole tree out
// again: while a chat runs, each new turn hangs under the turn that was the leaf, and when nothing
// else sits near it on its row, a full tidy layout would put it straight under its parent and
// leave every other node where it was. Anything else (a new branch, a run that now collapses
// differently, a crowded row) answers `null`, and the caller lays the tree out in full.
import type { FileChange, SessionTreeView, TreeNodeView } from '../ipc/wire';
import {
  buildTurns,
  collapseRuns,
  GAP_X,
  GAP_Y,
  NODE_HEIGHT,
  NODE_WIDTH,
  type Layout,
  type Placed,
  type TurnFile,
  type TurnNode,
} from './tree';

/** From a row to the next. */
const ROW = NODE_HEIGHT + GAP_Y;
/** The tidy layout keeps any two neighbours on a row one slot apart; two slots of clearance here
 * keeps this quick path conservative (a closer fit falls back to a full layout). */
const CLEAR = 2 * (NODE_WIDTH + GAP_X);

/** The same changes, path by path (a list is usually empty, or the same array). */
function sameFiles(
  a: readonly (FileChange | TurnFile)[],
  b: readonly (FileChange | TurnFile)[],
): boolean {
  return (
    a === b ||
    (a.length === b.length &&
      a.every(
        (file, i) =>
          file.path === b[i].path &&
          file.status === b[i].status &&
          file.added === b[i].added &&
          file.removed === b[i].removed,
      ))
  );
}

function sameStored(a: TreeNodeView, b: TreeNodeView): boolean {
  return (
    a.id === b.id &&
    a.parent_id === b.parent_id &&
    a.kind === b.kind &&
    a.first_line === b.first_line &&
    a.label === b.label &&
    a.aborted === b.aborted &&
    a.tokens === b.tokens &&
    a.cost === b.cost &&
    sameFiles(a.files, b.files)
  );
}

/** Whether a turn reads the same (flags, figures, parent and children) as before. */
function sameTurn(a: TurnNode, b: TurnNode): boolean {
  return (
    a.id === b.id &&
    a.kind === b.kind &&
    a.firstLine === b.firstLine &&
    a.label === b.label &&
    a.aborted === b.aborted &&
    a.markers.join('\n') === b.markers.join('\n') &&
    a.toolResults === b.toolResults &&
    a.onPath === b.onPath &&
    a.current === b.current &&
    a.leaf === b.leaf &&
    a.count === b.count &&
    a.tokens === b.tokens &&
    a.cost === b.cost &&
    a.branchTokens === b.branchTokens &&
    a.branchCost === b.branchCost &&
    sameFiles(a.files, b.files) &&
    (a.parent?.id ?? null) === (b.parent?.id ?? null) &&
    a.children.length === b.children.length &&
    a.children.every((child, i) => child.id === b.children[i].id)
  );
}

/**
 * The layout of `next` built from `previous` (the layout of `previousView` with the same
 * `expanded` runs) when `next` only appends nodes and every new turn hangs alone under a leaf:
 * placements of unchanged turns are reused as they are, turns whose flags changed (the old leaf,
 * the path) keep their coordinates, and new turns go straight under their parents. `null` when
 * that does not hold: lay `next` out in full. The same tree read again keeps `previous`. `roots` are `next`'s turns, collapsed with
 * `expanded` (given when the caller has them already).
 */
export function extendLayout(
  previous: Layout,
  previousView: SessionTreeView,
  next: SessionTreeView,
  expanded: ReadonlySet<string>,
  roots: TurnNode[] = collapseRuns(buildTurns(next), expanded),
): Layout | null {
  const before = previousView.nodes;
  if (next.session_id !== previousView.session_id || next.nodes.length < before.length) {
    return null;
  }
  for (let i = 0; i < before.length; i++) {
    if (!sameStored(before[i], next.nodes[i])) return null;
  }
  if (next.nodes.length === before.length) {
    // The same tree read again: the same layout; only another leaf needs a new one.
    return next.leaf_id === previousView.leaf_id ? previous : null;
  }
  const added = new Set(next.nodes.slice(before.length).map((node) => node.id));

  // The turns shown now, parents first.
  const shown = new Map<string, TurnNode>();
  const order: TurnNode[] = [];
  const stack = [...roots].reverse();
  for (let turn = stack.pop(); turn; turn = stack.pop()) {
    shown.set(turn.id, turn);
    order.push(turn);
    for (let i = turn.children.length - 1; i >= 0; i--) stack.push(turn.children[i]);
  }

  // Every turn shown before is still shown under the same parent.
  const placedById = new Map<string, Placed>();
  const nodes: Placed[] = [];
  for (const old of previous.nodes) {
    const turn = shown.get(old.node.id);
    if (!turn || (turn.parent?.id ?? null) !== (old.node.parent?.id ?? null)) return null;
    const placed = sameTurn(old.node, turn) ? old : { ...old, node: turn };
    placedById.set(turn.id, placed);
    nodes.push(placed);
  }

  // New turns: alone under a turn that had no children, with room on their row.
  let { minX, maxX, minY, maxY } = previous;
  for (const turn of order) {
    if (placedById.has(turn.id)) continue;
    if (!added.has(turn.id)) return null;
    const parent = turn.parent ? placedById.get(turn.parent.id) : undefined;
    if (!parent || parent.node.children.length !== 1) return null;
    const x = parent.x;
    const depth = parent.depth + 1;
    if (nodes.some((other) => other.depth === depth && Math.abs(other.x - x) < CLEAR)) return null;
    const placed: Placed = { node: turn, x, y: parent.y + ROW, depth };
    placedById.set(turn.id, placed);
    nodes.push(placed);
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, placed.y);
    maxY = Math.max(maxY, placed.y);
  }

  const oldEdges = new Map(previous.edges.map((edge) => [edge.to.node.id, edge]));
  const edges: Layout['edges'] = [];
  for (const to of nodes) {
    const from = to.node.parent ? placedById.get(to.node.parent.id) : undefined;
    if (!from) continue;
    const old = oldEdges.get(to.node.id);
    edges.push(old && old.from === from && old.to === to ? old : { from, to });
  }
  return { nodes, edges, minX, maxX, minY, maxY };
}
