// The tree panel's pure state (tree-panel.ts); its store is tested in tree-panel-store.test.ts.
import { describe, expect, it } from 'vitest';
import type { SessionTreeView, TreeNodeView } from '../ipc/wire';
import { comparisonOf, RESTORED, TREE } from '../test-ipc';
import { buildTurns, layoutTurns, type Layout, type Placed, type TurnNode } from './tree';
import {
  branchCostLabel,
  branchEnd,
  comparePair,
  focusTurnOf,
  followCurrent,
  highlightTarget,
  INITIAL_PANEL,
  isNothingToUndo,
  keepInView,
  keyCommand,
  menuTurnOf,
  nextLayout,
  placedById,
  reduce,
  showsLeaf,
  summarizable,
  type TreePanelAction,
  type TreePanelState,
} from './tree-panel';

const LAYOUT: Layout = layoutTurns(buildTurns(TREE));
const BY_ID = placedById(LAYOUT);

function placed(id: string): Placed {
  const found = BY_ID.get(id);
  if (!found) throw new Error(`no turn ${id}`);
  return found;
}

function turn(id: string): TurnNode {
  return placed(id).node;
}

function run(...actions: TreePanelAction[]): TreePanelState {
  return actions.reduce(reduce, INITIAL_PANEL);
}

const LOADED = run({ type: 'tree_loaded', tree: TREE });
const OTHER: SessionTreeView = { ...TREE, session_id: 's2', leaf_id: 'u2' };

describe('the panel state', () => {
  it('takes a tree and its leaf; another session drops its pick, offer and restore note', () => {
    expect(LOADED.tree).toBe(TREE);
    expect(LOADED.knownLeaf).toBe('a1b');
    // A note from before the first read stays (it is this session's).
    const noted = run({ type: 'undone', info: RESTORED }, { type: 'tree_loaded', tree: TREE });
    expect(noted.restoreNote).toBe('Undone: 2 files changed back (1 deleted)');

    const busy = { ...LOADED, picked: 'a1', leftLeaf: 'a1b', restoreNote: 'Restored 2 files' };
    const same = reduce(busy, { type: 'tree_loaded', tree: { ...TREE, leaf_id: 'a1' } });
    expect(same).toMatchObject({ picked: 'a1', leftLeaf: 'a1b', knownLeaf: 'a1' });
    expect(same.restoreNote).toBe('Restored 2 files');
    const other = reduce(busy, { type: 'tree_loaded', tree: OTHER });
    expect(other).toMatchObject({ picked: null, leftLeaf: null, restoreNote: null });
    expect(other).toMatchObject({ tree: OTHER, knownLeaf: 'u2' });
  });

  it('offers to summarise only a branch a visit left behind', () => {
    const visiting = reduce({ ...LOADED, leftLeaf: 'old' }, { type: 'visit', id: 'a1' });
    expect(visiting).toMatchObject({ selected: 'a1', leftLeaf: null });
    const left = reduce(visiting, { type: 'landed', before: TREE, oldLeaf: 'a1b', newLeaf: 'a1' });
    expect(left).toMatchObject({ leftLeaf: 'a1b', knownLeaf: 'a1' });
    // Up the same branch: nothing left behind.
    const up = reduce(visiting, { type: 'landed', before: TREE, oldLeaf: 'a1b', newLeaf: 'u1' });
    expect(up).toMatchObject({ leftLeaf: null, knownLeaf: 'u1' });
    // Without a tree from before the visit, nothing is offered.
    const blind = reduce(visiting, { type: 'landed', before: null, oldLeaf: 'a1b', newLeaf: 'a1' });
    expect(blind.leftLeaf).toBeNull();
    expect(reduce(left, { type: 'dismiss_offer' }).leftLeaf).toBeNull();
  });

  it('picks side A, drops it on a second press, and compares with another turn', () => {
    const picked = reduce(LOADED, { type: 'pick', id: 'a1' });
    expect(picked.picked).toBe('a1');
    expect(reduce(picked, { type: 'pick', id: 'a1' }).picked).toBeNull();
    expect(reduce(picked, { type: 'unpick' }).picked).toBeNull();
    // Another turn with A picked compares: the pick itself stays until the comparison comes.
    expect(reduce(picked, { type: 'pick', id: 'u2' })).toBe(picked);
    expect(comparePair(LOADED, 'a1')).toBeNull();
    expect(comparePair(picked, 'a1')).toBeNull();
    // Branches end after the tools' results a turn folds in.
    expect(comparePair(picked, 'a1b')).toEqual({ left: 't1', right: 'a1b' });
    const comparison = comparisonOf(TREE, 't1', 'a1b');
    const compared = reduce(picked, { type: 'compared', comparison });
    expect(compared).toMatchObject({ comparison, picked: null });
    expect(reduce(compared, { type: 'close_comparison' }).comparison).toBeNull();
  });

  it('opens the restore dialog on the end of a turn and says what a restore did', () => {
    const open = reduce(LOADED, { type: 'open_restore', turn: turn('a1') });
    expect(open.restoring).toEqual({ nodeId: 't1', turn: turn('a1') });
    expect(reduce(open, { type: 'close_restore' }).restoring).toBeNull();

    const done = reduce(
      { ...open, leftLeaf: 'x' },
      { type: 'restored', info: RESTORED, visitedTurn: null },
    );
    expect(done).toMatchObject({
      restoring: null,
      undoable: true,
      restoreNote: 'Restored 2 files (1 deleted)',
      leftLeaf: 'x',
      selected: null,
    });
    const went = reduce(
      { ...open, leftLeaf: 'x' },
      { type: 'restored', info: { ...RESTORED, written: 0, deleted: 0 }, visitedTurn: 'a1' },
    );
    expect(went).toMatchObject({
      selected: 'a1',
      leftLeaf: null,
      restoreNote: 'Restored: the files already matched',
    });
  });

  it('keeps track of whether there is a restore to undo', () => {
    expect(run({ type: 'can_undo', can: false }).undoable).toBe(false);
    expect(run({ type: 'can_undo', can: true }).undoable).toBe(true);
    // A restore done before the answer came is not forgotten.
    const restored = run({ type: 'restored', info: RESTORED, visitedTurn: null });
    expect(reduce(restored, { type: 'can_undo', can: false }).undoable).toBe(true);
    expect(reduce(restored, { type: 'nothing_to_undo' })).toMatchObject({
      undoable: false,
      restoreNote: 'Nothing to undo',
    });
    expect(isNothingToUndo({ code: 'nothing_to_undo' })).toBe(true);
    expect(isNothingToUndo({ code: 'changed_outside' })).toBe(false);
  });

  it('summarises one branch at a time, and only clears the offer it was for', () => {
    const offered = { ...LOADED, leftLeaf: 'a1b' };
    expect(summarizable(LOADED)).toBeNull();
    expect(summarizable(offered)).toBe('a1b');
    const busy = reduce(offered, { type: 'summarize_start' });
    expect(summarizable(busy)).toBeNull();
    expect(reduce(busy, { type: 'summarized', old: 'a1b' }).leftLeaf).toBeNull();
    // Another visit offered another branch meanwhile: that offer stays.
    const moved = { ...busy, leftLeaf: 'u2' };
    expect(reduce(moved, { type: 'summarized', old: 'a1b' })).toBe(moved);
    expect(reduce(busy, { type: 'summarize_end' }).summarizing).toBe(false);
  });

  it('opens runs and selects, never changing a state in place', () => {
    const before = JSON.stringify(LOADED);
    const expanded = reduce(LOADED, { type: 'expand', id: 'run:x' });
    const again = reduce(expanded, { type: 'expand', id: 'run:y' });
    expect([...again.expanded]).toEqual(['run:x', 'run:y']);
    expect([...expanded.expanded]).toEqual(['run:x']);
    expect(LOADED.expanded.size).toBe(0);
    expect(reduce(LOADED, { type: 'select', id: 'u2' }).selected).toBe('u2');
    expect(JSON.stringify(LOADED)).toBe(before);
    expect(INITIAL_PANEL.tree).toBeNull();
  });
});

/** A node as the stream carries it (`node_appended`'s view). */
function stored(id: string, parent: string | null, kind: TreeNodeView['kind']): TreeNodeView {
  return { ...TREE.nodes[0], id, parent_id: parent, kind, first_line: `${kind} ${id}` };
}

function appended(node: TreeNodeView, sessionId = 's1'): TreePanelAction {
  return { type: 'node_appended', sessionId, nodeId: node.id, node };
}

describe('nodes the chat’s stream stored', () => {
  const u3 = stored('u3', 'a1b', 'user');
  const a3 = stored('a3', 'u3', 'assistant');

  it('are appended with their view, and the leaf moves to them', () => {
    const one = reduce(LOADED, appended(u3));
    expect(one.tree?.nodes.map((n) => n.id)).toEqual(['u1', 'a1', 't1', 'a1b', 'u2', 'u3']);
    expect(one.tree?.nodes.at(-1)).toBe(u3);
    expect(one.tree).toMatchObject({ session_id: 's1', leaf_id: 'u3' });
    expect(one.knownLeaf).toBe('u3');
    // The nodes read before are the same objects; the tree before is not changed.
    expect(one.tree?.nodes[0]).toBe(TREE.nodes[0]);
    expect(TREE.nodes).toHaveLength(5);
    const two = reduce(one, appended(a3));
    expect(two.tree?.leaf_id).toBe('a3');
    // A root (a new first message) and a node under an older turn (a regenerated answer).
    expect(reduce(LOADED, appended(stored('u4', null, 'user'))).tree?.leaf_id).toBe('u4');
    const again = reduce(LOADED, appended(stored('a1c', 'u1', 'assistant')));
    expect(again.tree?.leaf_id).toBe('a1c');
    expect(buildTurns(again.tree as SessionTreeView)[0].children.map((t) => t.id)).toEqual([
      'a1',
      'a1b',
      'a1c',
    ]);
  });

  it('leave the tree alone when it is another session’s, not read yet, or has the node', () => {
    expect(reduce(LOADED, appended(u3, 's2'))).toBe(LOADED);
    expect(reduce(INITIAL_PANEL, appended(u3))).toBe(INITIAL_PANEL);
    // A new chat's tree (no session yet) is read once its first message is stored.
    const blank = run({
      type: 'tree_loaded',
      tree: { session_id: null, leaf_id: null, nodes: [] },
    });
    expect(reduce(blank, appended(stored('n1', null, 'user')))).toBe(blank);
    // Already read (a read that came first): nothing to add, the leaf read stays.
    expect(reduce(LOADED, appended(TREE.nodes[2]))).toBe(LOADED);
  });

  it('stop being appended after one the tree could not take, until a read brings it', () => {
    // Its parent is not known: the tree stays for the next read, and so does what follows.
    const orphan = reduce(LOADED, appended(a3));
    expect(orphan.tree).toBe(TREE);
    expect(orphan.unplaced).toBe('a3');
    const after = reduce(orphan, appended(u3));
    expect(after.tree).toBe(TREE);
    expect(after.unplaced).toBe('a3');
    // No view carried (an older stream).
    const blind = reduce(LOADED, {
      type: 'node_appended',
      sessionId: 's1',
      nodeId: 'u3',
      node: null,
    });
    expect(blind).toMatchObject({ tree: TREE, unplaced: 'u3' });
    // A read from before it was stored leaves it missed; one that has it, or another
    // session's, clears it.
    expect(reduce(orphan, { type: 'tree_loaded', tree: TREE }).unplaced).toBe('a3');
    const read = { ...TREE, leaf_id: 'a3', nodes: [...TREE.nodes, u3, a3] };
    const healed = reduce(orphan, { type: 'tree_loaded', tree: read });
    expect(healed.unplaced).toBeNull();
    expect(reduce(healed, appended(stored('u5', 'a3', 'user'))).tree?.leaf_id).toBe('u5');
    expect(reduce(orphan, { type: 'tree_loaded', tree: OTHER }).unplaced).toBeNull();
  });

  it('tell whether the tree already ends where the chat does', () => {
    expect(showsLeaf(LOADED, 's1', 'a1b')).toBe(true);
    const grown = reduce(LOADED, appended(u3));
    expect(showsLeaf(grown, 's1', 'u3')).toBe(true);
    // The chat is ahead (not appended yet), elsewhere, on another session, or without one.
    expect(showsLeaf(grown, 's1', 'a3')).toBe(false);
    expect(showsLeaf(grown, 's1', 'a1')).toBe(false);
    expect(showsLeaf(grown, 's2', 'u3')).toBe(false);
    expect(showsLeaf(grown, null, null)).toBe(false);
    expect(showsLeaf(grown, 's1', null)).toBe(false);
    expect(showsLeaf(INITIAL_PANEL, 's1', 'u3')).toBe(false);
    // A node missed: read.
    expect(showsLeaf({ ...grown, unplaced: 'x' }, 's1', 'u3')).toBe(false);
    // A leaf the tree names but does not have.
    const odd = { ...LOADED, tree: { ...TREE, leaf_id: 'gone' } };
    expect(showsLeaf(odd, 's1', 'gone')).toBe(false);
  });

  it('are placed under the last layout, not laid out again', () => {
    const none: ReadonlySet<string> = new Set();
    let previous = { tree: TREE, expanded: none, layout: LAYOUT };
    let state = LOADED;
    // A model change, the next message under it, its answer and the answer's tool result.
    const turn3 = [
      { ...stored('m3', 'a1b', 'model_change'), first_line: 'mock/m2' },
      stored('u3', 'm3', 'user'),
      a3,
      stored('r3', 'a3', 'tool_result'),
    ];
    for (const node of turn3) {
      state = reduce(state, appended(node));
      const tree = state.tree as SessionTreeView;
      const roots = buildTurns(tree);
      const layout = nextLayout(previous, tree, none, roots);
      const full = layoutTurns(roots);
      // Where a full layout would put every turn, reusing the placements of the unchanged ones.
      expect(layout.nodes.map((p) => [p.node.id, p.x, p.y]).sort()).toEqual(
        full.nodes.map((p) => [p.node.id, p.x, p.y]).sort(),
      );
      expect(placedById(layout).get('u2')).toBe(placedById(previous.layout).get('u2'));
      previous = { tree, expanded: none, layout };
    }
    const byId = placedById(previous.layout);
    expect(byId.get('a3')?.node).toMatchObject({ current: true, toolResults: 1, markers: [] });
    expect(byId.get('u3')?.node).toMatchObject({ onPath: true, markers: ['model: mock/m2'] });
    expect(byId.get('a1b')?.node.current).toBe(false);
  });
});

describe('what the panel shows', () => {
  it('is about the selected turn, else the current one; the menu never about a run', () => {
    expect([...BY_ID.keys()].sort()).toEqual(['a1', 'a1b', 'u1', 'u2']);
    expect(BY_ID.get('a1')?.node.toolResults).toBe(1);
    const current = LAYOUT.nodes.find((p) => p.node.current);
    expect(current?.node.id).toBe('a1b');
    expect(focusTurnOf(null, BY_ID, current)?.id).toBe('a1b');
    expect(focusTurnOf('a1', BY_ID, current)?.id).toBe('a1');
    expect(focusTurnOf('gone', BY_ID, current)?.id).toBe('a1b');
    expect(focusTurnOf(null, BY_ID, undefined)).toBeNull();
    expect(menuTurnOf(null, BY_ID)).toBeNull();
    expect(menuTurnOf('u2', BY_ID)?.id).toBe('u2');
    expect(menuTurnOf('gone', BY_ID)).toBeNull();
    const withRun = new Map(BY_ID);
    withRun.set('run:a', { ...placed('u2'), node: { ...turn('u2'), id: 'run:a', kind: 'run' } });
    expect(menuTurnOf('run:a', withRun)).toBeNull();
    expect(branchCostLabel(turn('a1b'), null)).toBe('This branch');
    expect(branchCostLabel(turn('a1b'), 'a1b')).toBe('This branch');
    expect(branchCostLabel(turn('a1'), 'a1')).toBe('Branch to the selected turn');
    expect(branchCostLabel(turn('a1'), null)).toBe('This branch');
  });

  it('ends a branch after the tool results of its last turn', () => {
    expect(branchEnd(TREE, 'a1')).toBe('t1');
    expect(branchEnd(TREE, 'a1b')).toBe('a1b');
    expect(branchEnd(null, 'a1')).toBe('a1');
  });

  it('shows a search hit as the drawn turn it belongs to', () => {
    expect(highlightTarget(TREE, BY_ID, 't1')).toBe('a1');
    expect(highlightTarget(TREE, BY_ID, 'u2')).toBe('u2');
    expect(highlightTarget(TREE, BY_ID, 'missing')).toBeNull();
  });

  it('grows the last layout while the same runs are open, else lays the tree out anew', () => {
    const roots = buildTurns(TREE);
    const none: ReadonlySet<string> = new Set();
    const previous = { tree: TREE, expanded: none, layout: LAYOUT };
    // The same tree read again keeps the layout as it is.
    expect(nextLayout(previous, { ...TREE }, none, roots)).toBe(LAYOUT);
    const fresh = nextLayout({ ...previous, expanded: new Set() }, TREE, none, roots);
    expect(fresh).not.toBe(LAYOUT);
    expect(fresh.nodes.map((p) => [p.node.id, p.x, p.y])).toEqual(
      LAYOUT.nodes.map((p) => [p.node.id, p.x, p.y]),
    );
    expect(nextLayout(null, TREE, none, roots)).not.toBe(LAYOUT);
    expect(nextLayout(previous, null, none, []).nodes).toEqual([]);
  });
});

describe('the keyboard', () => {
  const roots = buildTurns(TREE);
  const u1 = roots[0];
  const [a1, a1b] = u1.children;

  it('goes with Enter, drops side A with Esc and leaves other keys alone', () => {
    expect(keyCommand('Enter', a1, a1b, roots, null)).toEqual({ kind: 'visit', turn: a1 });
    expect(keyCommand('Enter', undefined, a1b, roots, null)).toEqual({ kind: 'ignore' });
    expect(keyCommand('Escape', a1, a1b, roots, 'u2')).toEqual({ kind: 'unpick' });
    expect(keyCommand('Escape', a1, a1b, roots, null)).toEqual({ kind: 'ignore' });
    expect(keyCommand('a', a1, a1b, roots, 'u2')).toEqual({ kind: 'ignore' });
  });

  it('moves to the parent, the child on the path and the siblings', () => {
    expect(keyCommand('ArrowUp', a1b, a1b, roots, null)).toEqual({ kind: 'move', id: 'u1' });
    expect(keyCommand('ArrowDown', u1, a1b, roots, null)).toEqual({ kind: 'move', id: 'a1b' });
    expect(keyCommand('ArrowLeft', a1b, a1b, roots, null)).toEqual({ kind: 'move', id: 'a1' });
    expect(keyCommand('ArrowRight', u1, a1b, roots, null)).toEqual({ kind: 'move', id: 'u2' });
    // Nowhere to go: the key is still the tree's.
    expect(keyCommand('ArrowUp', u1, a1b, roots, null)).toEqual({ kind: 'move', id: null });
    expect(keyCommand('ArrowLeft', a1, a1b, roots, null)).toEqual({ kind: 'move', id: null });
  });

  it('starts from the current turn, else the first root, when nothing is selected', () => {
    expect(keyCommand('ArrowDown', undefined, a1b, roots, null)).toEqual({
      kind: 'move',
      id: 'a1b',
    });
    expect(keyCommand('ArrowUp', undefined, undefined, roots, null)).toEqual({
      kind: 'move',
      id: 'u1',
    });
    expect(keyCommand('ArrowUp', undefined, undefined, [], null)).toEqual({
      kind: 'move',
      id: null,
    });
  });
});

describe('keeping turns in view', () => {
  const at = { ...placed('u1'), x: 100, y: 100 };

  it('centres a selected turn near an edge, and leaves one well inside alone', () => {
    const view = { x: 0, y: 0, k: 1 };
    expect(keepInView(view, at, 400, 300)).toBeNull();
    expect(keepInView({ ...view, x: -70 }, at, 400, 300)).toEqual({ x: 100, y: 50, k: 1 });
    expect(keepInView(view, at, 130, 300)).toEqual({ x: -35, y: 50, k: 1 });
    expect(keepInView({ ...view, y: 180 }, at, 400, 300)).toEqual({ x: 100, y: 50, k: 1 });
    expect(keepInView({ x: 0, y: 0, k: 2 }, at, 400, 300)).toBeNull();
    expect(keepInView({ x: 0, y: 0, k: 2 }, at, 400, 220)).toEqual({ x: 0, y: -90, k: 2 });
  });

  it('brings the current turn back when it is out of sight', () => {
    const view = { x: 0, y: 0, k: 1 };
    // Half a node's width from either side.
    expect(followCurrent(view, { ...at, x: 92 }, 400, 300)).toBeNull();
    expect(followCurrent(view, { ...at, x: 91 }, 400, 300)).toEqual({ x: 109, y: 50, k: 1 });
    expect(followCurrent(view, { ...at, x: 309 }, 400, 300)).toEqual({ x: -109, y: 50, k: 1 });
    expect(followCurrent(view, { ...at, y: 280 }, 400, 300)).toBeNull();
    expect(followCurrent(view, { ...at, y: 281 }, 400, 300)).toEqual({ x: 100, y: -131, k: 1 });
    expect(followCurrent({ ...view, y: -101 }, at, 400, 300)).toEqual({ x: 100, y: 50, k: 1 });
  });
});
