import { describe, expect, it } from 'vitest';
import type { NodeKind, SessionTreeView, TreeNodeView } from '../ipc/wire';
import { buildTurns, collapseRuns, layoutTurns, type Layout } from './tree';
import { extendLayout } from './tree-extend';

function node(id: string, parent: string | null, kind: NodeKind, cost = 0): TreeNodeView {
  return {
    id,
    parent_id: parent,
    kind,
    first_line: id,
    label: null,
    aborted: false,
    tokens: 0,
    cost,
    files: [],
  };
}

function view(nodes: TreeNodeView[], leaf: string | null): SessionTreeView {
  return { session_id: 's1', leaf_id: leaf, nodes };
}

function chain(n: number): TreeNodeView[] {
  return Array.from({ length: n }, (_, i) =>
    node(`n${i}`, i === 0 ? null : `n${i - 1}`, i % 2 === 0 ? 'user' : 'assistant'),
  );
}

const NONE: ReadonlySet<string> = new Set();

function full(tree: SessionTreeView, expanded = NONE): Layout {
  return layoutTurns(collapseRuns(buildTurns(tree), expanded));
}

function at(layout: Layout, id: string) {
  const found = layout.nodes.find((placed) => placed.node.id === id);
  if (!found) throw new Error(`${id} is not laid out`);
  return found;
}

describe('growing the layout without laying it out again', () => {
  it('puts a new turn under the old leaf and reuses every other placement', () => {
    const before = view(chain(4), 'n3');
    const previous = full(before);
    const next = view([...chain(4), node('n4', 'n3', 'user')], 'n4');
    const grown = extendLayout(previous, before, next, NONE);
    expect(grown).not.toBeNull();
    if (!grown) return;
    expect(grown.nodes).toHaveLength(5);
    // Unchanged turns keep their placement objects; the old leaf keeps its coordinates.
    for (const id of ['n0', 'n1', 'n2']) expect(at(grown, id)).toBe(at(previous, id));
    expect(at(grown, 'n3')).toMatchObject({ x: at(previous, 'n3').x, y: at(previous, 'n3').y });
    expect(at(grown, 'n3').node).toMatchObject({ leaf: false, current: false, onPath: true });
    expect(at(grown, 'n4').node).toMatchObject({ leaf: true, current: true, onPath: true });
    // Where a full layout would put it.
    const whole = full(next);
    expect(at(grown, 'n4').x).toBe(at(whole, 'n4').x);
    expect(at(grown, 'n4').y).toBe(at(whole, 'n4').y);
    expect(grown.maxY).toBe(whole.maxY);
    expect(grown.edges).toHaveLength(4);
    expect(grown.edges.find((e) => e.to.node.id === 'n1')).toBe(
      previous.edges.find((e) => e.to.node.id === 'n1'),
    );
  });

  it('reuses each placement through a stream of appended turns and tool results', () => {
    let tree = view(chain(2), 'n1');
    let layout = full(tree);
    const first = at(layout, 'n0');
    const steps: [TreeNodeView, string][] = [
      [node('t1', 'n1', 'tool_result'), 't1'],
      [node('n2', 't1', 'assistant', 0.01), 'n2'],
      [node('m1', 'n2', 'model_change'), 'm1'],
      [node('n3', 'm1', 'user'), 'n3'],
    ];
    for (const [added, leaf] of steps) {
      const next = view([...tree.nodes, added], leaf);
      const grown = extendLayout(layout, tree, next, NONE);
      expect(grown).not.toBeNull();
      if (!grown) return;
      tree = next;
      layout = grown;
    }
    expect(at(layout, 'n0')).toBe(first);
    expect(at(layout, 'n1').node.toolResults).toBe(1);
    expect(at(layout, 'n2').node.branchCost).toBe(0.01);
    expect(at(layout, 'n3').node.markers).toEqual(['model: m1']);
    const whole = full(tree);
    for (const placed of whole.nodes) {
      expect(at(layout, placed.node.id)).toMatchObject({ x: placed.x, y: placed.y });
    }
  });

  it('carries the files of appended turns and of tool results added to the old leaf', () => {
    const before = view(chain(2), 'n1');
    const previous = full(before);
    const edit = {
      path: 'src/lib.rs',
      old_path: null,
      status: 'modified' as const,
      added: 4,
      removed: 2,
      binary: false,
    };
    const withTool = view(
      [...chain(2), { ...node('t1', 'n1', 'tool_result'), files: [edit] }],
      't1',
    );
    const grown = extendLayout(previous, before, withTool, NONE);
    expect(grown).not.toBeNull();
    if (!grown) return;
    // The leaf's turn changed (it gained a file): a new placement at the same place.
    expect(at(grown, 'n1')).not.toBe(at(previous, 'n1'));
    expect(at(grown, 'n1')).toMatchObject({ x: at(previous, 'n1').x, y: at(previous, 'n1').y });
    expect(at(grown, 'n1').node.files).toEqual([
      { path: 'src/lib.rs', oldPath: null, status: 'modified', added: 4, removed: 2 },
    ]);
    expect(at(grown, 'n0')).toBe(at(previous, 'n0'));
    const next = view(
      [...withTool.nodes, { ...node('n2', 't1', 'user'), files: [{ ...edit, path: 'b.rs' }] }],
      'n2',
    );
    const again = extendLayout(grown, withTool, next, NONE);
    expect(again && at(again, 'n2').node.files.map((f) => f.path)).toEqual(['b.rs']);
    // Stored files that changed under a known node: laid out anew.
    const rewritten = view(
      withTool.nodes.map((n) => (n.id === 't1' ? { ...n, files: [] } : n)),
      't1',
    );
    expect(extendLayout(grown, withTool, rewritten, NONE)).toBeNull();
  });

  it('grows one branch of a tree when its row is free', () => {
    const nodes = [node('u1', null, 'user'), node('a1', 'u1', 'assistant')];
    nodes.push(node('a2', 'u1', 'assistant'));
    const before = view(nodes, 'a1');
    const next = view([...nodes, node('u3', 'a1', 'user'), node('a3', 'u3', 'assistant')], 'a3');
    const grown = extendLayout(full(before), before, next, NONE);
    expect(grown).not.toBeNull();
    const whole = full(next);
    for (const placed of whole.nodes) {
      expect(grown && at(grown, placed.node.id)).toMatchObject({ x: placed.x, y: placed.y });
    }
    expect(grown && at(grown, 'a2').node.onPath).toBe(false);
  });

  it('falls back when a neighbouring subtree sits on the new row', () => {
    const nodes = [
      node('u1', null, 'user'),
      node('a1', 'u1', 'assistant'),
      node('a2', 'u1', 'assistant'),
      node('u3', 'a2', 'user'),
    ];
    const before = view(nodes, 'a1');
    const next = view([...nodes, node('u4', 'a1', 'user')], 'u4');
    expect(extendLayout(full(before), before, next, NONE)).toBeNull();
  });

  it('falls back for a new branch, a new root, a changed node or a run that now collapses', () => {
    const before = view(chain(4), 'n3');
    const previous = full(before);
    const sibling = view([...chain(4), node('n3b', 'n2', 'assistant')], 'n3b');
    expect(extendLayout(previous, before, sibling, NONE)).toBeNull();
    const root = view([...chain(4), node('r', null, 'user')], 'r');
    expect(extendLayout(previous, before, root, NONE)).toBeNull();
    const labelled = chain(5);
    labelled[1] = { ...labelled[1], label: 'keep' };
    expect(extendLayout(previous, before, view(labelled, 'n4'), NONE)).toBeNull();
    // n1…n4 plain once n5 continues past n4: they become a run segment, n4 disappears.
    const six = view(chain(6), 'n5');
    const seven = view(chain(7), 'n6');
    expect(extendLayout(full(six), six, seven, NONE)).toBeNull();
    // Read again unchanged: the same layout; moved to another leaf, or another session: anew.
    expect(extendLayout(previous, before, { ...before }, NONE)).toBe(previous);
    expect(extendLayout(previous, before, view(chain(4), 'n1'), NONE)).toBeNull();
    const other = { ...view(chain(5), 'n4'), session_id: 's2' };
    expect(extendLayout(previous, before, other, NONE)).toBeNull();
  });
});
