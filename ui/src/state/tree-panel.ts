// The tree panel's state, pure: what the panel holds (the tree, the selected turn, side A of a
// comparison and the comparison shown, the offer to summarise a branch left behind, the restore
// dialog, whether there is a restore to undo and what the last one did) and how each thing the
// user or the store does changes it. No IPC, no runes, no DOM: `TreePanelStore`
// (tree-panel.svelte.ts) calls Rust and feeds the results through `reduce`.
import type { BranchComparison, RestoreInfo, SessionTreeView, TreeNodeView } from '../ipc/wire';
import { NOTHING_TO_UNDO, restoreSummary } from './restore';
import {
  layoutTurns,
  leftBranch,
  neighbour,
  NODE_WIDTH,
  turnEnd,
  type Layout,
  type Placed,
  type TurnNode,
  type Viewport,
} from './tree';
import { extendLayout } from './tree-extend';
import { centreOn } from './tree-viewport';

/** The turn whose files the restore dialog offers to bring back, and the node it restores to. */
export interface RestoreTarget {
  nodeId: string;
  turn: TurnNode;
}

export interface TreePanelState {
  tree: SessionTreeView | null;
  /** Collapsed runs the user opened. */
  expanded: ReadonlySet<string>;
  selected: string | null;
  /** The turn picked as side A of a comparison, and the comparison shown. */
  picked: string | null;
  comparison: BranchComparison | null;
  /** The leaf of the branch just left (the summarise offer), and whether it is being summarised. */
  leftLeaf: string | null;
  summarizing: boolean;
  /** The leaf as last known: from the tree, or from where the last visit landed. */
  knownLeaf: string | null;
  restoring: RestoreTarget | null;
  /** The project has a restore to undo; what the last restore or undo did. */
  undoable: boolean;
  restoreNote: string | null;
  /** A node of the tree's session the chat's stream named but the tree could not take (no
   * view carried, or its parent unknown): until a read brings it, no node is appended from the
   * stream (the tree's nodes stay in the store's order, which reading what is new relies on). */
  unplaced: string | null;
}

export const INITIAL_PANEL: TreePanelState = Object.freeze({
  tree: null,
  expanded: new Set<string>(),
  selected: null,
  picked: null,
  comparison: null,
  leftLeaf: null,
  summarizing: false,
  knownLeaf: null,
  restoring: null,
  undoable: false,
  restoreNote: null,
  unplaced: null,
});

export type TreePanelAction =
  /** The tree was read (whole, or merged with what was stored since). */
  | { type: 'tree_loaded'; tree: SessionTreeView }
  /** The chat's stream stored a node (`node_appended`), with its view when it carries one. */
  | { type: 'node_appended'; sessionId: string; nodeId: string; node: TreeNodeView | null }
  /** A collapsed run was opened. */
  | { type: 'expand'; id: string }
  | { type: 'select'; id: string }
  /** Going to a turn: it is selected and the offer of the last visit goes. */
  | { type: 'visit'; id: string }
  /** Where a visit landed: `before` and `oldLeaf` as they were when it started. */
  | {
      type: 'landed';
      before: SessionTreeView | null;
      oldLeaf: string | null;
      newLeaf: string | null;
    }
  /** The menu's Compare on a turn while nothing else is picked: picks it, or drops it. */
  | { type: 'pick'; id: string }
  | { type: 'unpick' }
  | { type: 'compared'; comparison: BranchComparison }
  | { type: 'close_comparison' }
  | { type: 'open_restore'; turn: TurnNode }
  | { type: 'close_restore' }
  /** A restore done from the dialog; `visitedTurn`: it also went to that turn. */
  | { type: 'restored'; info: RestoreInfo; visitedTurn: string | null }
  | { type: 'undone'; info: RestoreInfo }
  | { type: 'nothing_to_undo' }
  /** Whether the project has a restore to undo (asked once, when the panel opens). */
  | { type: 'can_undo'; can: boolean }
  | { type: 'summarize_start' }
  /** The branch `old` was summarised. */
  | { type: 'summarized'; old: string }
  | { type: 'summarize_end' }
  | { type: 'dismiss_offer' };

/** `state` after `action`; never changed in place. */
export function reduce(state: TreePanelState, action: TreePanelAction): TreePanelState {
  switch (action.type) {
    case 'tree_loaded': {
      const next = { ...state, knownLeaf: action.tree.leaf_id, tree: action.tree };
      // A read made before the node missed was stored does not bring it: still missed.
      if (
        state.unplaced !== null &&
        (action.tree.session_id !== state.tree?.session_id || hasNode(action.tree, state.unplaced))
      ) {
        next.unplaced = null;
      }
      if (action.tree.session_id !== state.tree?.session_id) {
        // Another session: its own pick and offer; the last restore's note stays on first read.
        next.picked = null;
        next.leftLeaf = null;
        if (state.tree) next.restoreNote = null;
      }
      return next;
    }
    case 'node_appended':
      return nodeAppended(state, action);
    case 'expand':
      return { ...state, expanded: new Set([...state.expanded, action.id]) };
    case 'select':
      return { ...state, selected: action.id };
    case 'visit':
      return { ...state, selected: action.id, leftLeaf: null };
    case 'landed': {
      const left = action.before && leftBranch(action.before, action.oldLeaf, action.newLeaf);
      return {
        ...state,
        knownLeaf: action.newLeaf,
        leftLeaf: left ? action.oldLeaf : state.leftLeaf,
      };
    }
    case 'pick':
      if (state.picked && state.picked !== action.id) return state;
      return { ...state, picked: state.picked ? null : action.id };
    case 'unpick':
      return { ...state, picked: null };
    case 'compared':
      return { ...state, comparison: action.comparison, picked: null };
    case 'close_comparison':
      return { ...state, comparison: null };
    case 'open_restore':
      return {
        ...state,
        restoring: { nodeId: branchEnd(state.tree, action.turn.id), turn: action.turn },
      };
    case 'close_restore':
      return { ...state, restoring: null };
    case 'restored': {
      const next = {
        ...state,
        restoring: null,
        undoable: true,
        restoreNote: restoreSummary(action.info),
      };
      if (action.visitedTurn !== null) {
        next.selected = action.visitedTurn;
        next.leftLeaf = null;
      }
      return next;
    }
    case 'undone':
      return { ...state, restoreNote: restoreSummary(action.info, true) };
    case 'nothing_to_undo':
      return { ...state, undoable: false, restoreNote: 'Nothing to undo' };
    case 'can_undo':
      return { ...state, undoable: state.undoable || action.can };
    case 'summarize_start':
      return { ...state, summarizing: true };
    case 'summarized':
      return state.leftLeaf === action.old ? { ...state, leftLeaf: null } : state;
    case 'summarize_end':
      return { ...state, summarizing: false };
    case 'dismiss_offer':
      return { ...state, leftLeaf: null };
  }
}

/** Whether `tree` has the node `id` (searched from the newest: what the stream names is new). */
function hasNode(tree: SessionTreeView, id: string): boolean {
  const nodes = tree.nodes;
  for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i].id === id) return true;
  return false;
}

/**
 * The tree with a node the chat's stream stored appended and the leaf moved to it, without
 * reading the tree: only when the tree is of the node's session, does not have it yet, and has
 * its parent (or it is a root). Otherwise the tree stays as it is and the panel's next read
 * brings it (`showsLeaf` then answers no: the tree's leaf is not the chat's).
 */
function nodeAppended(
  state: TreePanelState,
  action: Extract<TreePanelAction, { type: 'node_appended' }>,
): TreePanelState {
  const tree = state.tree;
  // No tree yet, or another session's: the read the chat's change starts brings it.
  if (!tree || tree.session_id !== action.sessionId) return state;
  if (hasNode(tree, action.nodeId)) return state;
  const node = action.node;
  const fits =
    state.unplaced === null &&
    node !== null &&
    node.id === action.nodeId &&
    (node.parent_id === null || hasNode(tree, node.parent_id));
  if (!fits) return state.unplaced === null ? { ...state, unplaced: action.nodeId } : state;
  return {
    ...state,
    tree: { session_id: tree.session_id, leaf_id: node.id, nodes: [...tree.nodes, node] },
    knownLeaf: node.id,
  };
}

/**
 * Whether the panel's tree already shows the chat as it is, so reading it again would bring
 * nothing: the same session, no node missed from the stream, and the chat's leaf is the tree's
 * leaf (a node it has). Not before the chat has a session and a leaf.
 */
export function showsLeaf(
  state: TreePanelState,
  sessionId: string | null,
  leafId: string | null,
): boolean {
  const tree = state.tree;
  return (
    tree !== null &&
    sessionId !== null &&
    leafId !== null &&
    state.unplaced === null &&
    tree.session_id === sessionId &&
    tree.leaf_id === leafId &&
    hasNode(tree, leafId)
  );
}

/** Whether a failed undo only means there was nothing to undo (said in the panel, not reported). */
export function isNothingToUndo(error: { code: string }): boolean {
  return error.code === NOTHING_TO_UNDO;
}

/** The last stored node of the turn `id` (its tool results folded in): where its branch ends. */
export function branchEnd(tree: SessionTreeView | null, id: string): string {
  return tree ? turnEnd(tree, id) : id;
}

/**
 * The menu's Compare on `turnId`: the two branch ends to compare when side A is another turn,
 * `null` when the press only picks or drops side A (the `pick` action).
 */
export function comparePair(
  state: TreePanelState,
  turnId: string,
): { left: string; right: string } | null {
  if (!state.picked || state.picked === turnId) return null;
  return { left: branchEnd(state.tree, state.picked), right: branchEnd(state.tree, turnId) };
}

/** Whether the summarise offer can be accepted now: the leaf to summarise, else `null`. */
export function summarizable(state: TreePanelState): string | null {
  return state.leftLeaf && !state.summarizing ? state.leftLeaf : null;
}

/** The last layout made, and what it was made from. */
export interface LaidOut {
  tree: SessionTreeView;
  expanded: ReadonlySet<string>;
  layout: Layout;
}

/**
 * The layout of `roots`: while the chat only appends turns (the same runs open), grown from the
 * last one without laying the whole tree out again; else laid out anew.
 */
export function nextLayout(
  previous: LaidOut | null,
  tree: SessionTreeView | null,
  expanded: ReadonlySet<string>,
  roots: TurnNode[],
): Layout {
  let next: Layout | null = null;
  if (tree && previous && previous.expanded === expanded) {
    next = extendLayout(previous.layout, previous.tree, tree, expanded, roots);
  }
  return next ?? layoutTurns(roots);
}

/** The layout's turns by id. */
export function placedById(layout: Layout): ReadonlyMap<string, Placed> {
  return new Map(layout.nodes.map((placed) => [placed.node.id, placed]));
}

/** The turn the header's figures are about: the selected one, else the current one. */
export function focusTurnOf(
  selected: string | null,
  byId: ReadonlyMap<string, Placed>,
  current: Placed | undefined,
): TurnNode | null {
  return (selected ? byId.get(selected)?.node : undefined) ?? current?.node ?? null;
}

/** The turn the node menu is about: the selected one, unless it is a collapsed run. */
export function menuTurnOf(
  selected: string | null,
  byId: ReadonlyMap<string, Placed>,
): TurnNode | null {
  const placed = selected ? byId.get(selected) : undefined;
  return placed && placed.node.kind !== 'run' ? placed.node : null;
}

/** The branch-cost line's opening words. */
export function branchCostLabel(turn: TurnNode, selected: string | null): string {
  return turn.current || !selected ? 'This branch' : 'Branch to the selected turn';
}

/**
 * The drawn turn a search hit's node shows as: the node itself, or the nearest node above it
 * that is drawn (a tool result or marker shows as the turn above it); `null` when none is.
 */
export function highlightTarget(
  tree: SessionTreeView,
  drawn: ReadonlyMap<string, unknown>,
  nodeId: string,
): string | null {
  const parents = new Map(tree.nodes.map((n) => [n.id, n.parent_id]));
  let id: string | null | undefined = nodeId;
  while (id && !drawn.has(id)) id = parents.get(id);
  return id ?? null;
}

/** What a key pressed on the tree does. */
export type KeyCommand =
  /** Not the tree's key: the browser keeps it. */
  | { kind: 'ignore' }
  /** Enter on the selected turn. */
  | { kind: 'visit'; turn: TurnNode }
  /** Esc while side A is picked. */
  | { kind: 'unpick' }
  /** An arrow key: the turn to select and focus (`null`: nowhere to go). */
  | { kind: 'move'; id: string | null };

type Arrow = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight';

function isArrow(key: string): key is Arrow {
  return key === 'ArrowUp' || key === 'ArrowDown' || key === 'ArrowLeft' || key === 'ArrowRight';
}

/**
 * `key` on the tree: Enter goes to the selected turn, Esc drops side A, arrows move the
 * selection (up: parent, down: child on the path, left/right: siblings); with nothing selected an
 * arrow selects the current turn, else the first root.
 */
export function keyCommand(
  key: string,
  at: TurnNode | undefined,
  current: TurnNode | undefined,
  roots: TurnNode[],
  picked: string | null,
): KeyCommand {
  if (key === 'Enter' && at) return { kind: 'visit', turn: at };
  if (key === 'Escape' && picked) return { kind: 'unpick' };
  if (!isArrow(key)) return { kind: 'ignore' };
  const start = at ?? current ?? roots[0];
  if (!start) return { kind: 'move', id: null };
  const next = at ? neighbour(at, key, roots) : start;
  return { kind: 'move', id: next?.id ?? null };
}

/** The view centred on `placed` when a turn selected from the keyboard is near an edge or
 * out of sight; `null`: it is in view. */
export function keepInView(
  view: Viewport,
  placed: Placed,
  width: number,
  height: number,
): Viewport | null {
  const sx = placed.x * view.k + view.x;
  const sy = placed.y * view.k + view.y;
  if (sx < 40 || sx > width - 40 || sy < 30 || sy > height - 30) {
    return centreOn(view, placed.x, placed.y, width, height);
  }
  return null;
}

/** The view centred on the current turn when it moved out of sight (another branch chosen, a
 * new turn); `null`: it can be seen. */
export function followCurrent(
  view: Viewport,
  current: Placed,
  width: number,
  height: number,
): Viewport | null {
  const sx = current.x * view.k + view.x;
  const sy = current.y * view.k + view.y;
  const margin = (NODE_WIDTH / 2) * view.k;
  if (sx < margin || sx > width - margin || sy < 0 || sy > height - 20) {
    return centreOn(view, current.x, current.y, width, height);
  }
  return null;
}
