import { hierarchy, tree as tidyTree } from 'd3-hierarchy';
import { describe, expect, it } from 'vitest';
import type { FileChange, NodeKind, SessionTreeView, TreeNodeView } from '../ipc/wire';
import {
  buildTurns,
  collapseRuns,
  FILES_LISTED,
  filesSummary,
  GAP_X,
  layoutTurns,
  leftBranch,
  mergeDelta,
  neighbour,
  NODE_HEIGHT,
  NODE_WIDTH,
  GAP_Y,
  RUN_MIN,
  shorten,
  turnEnd,
  visiblePart,
  type Layout,
  type Placed,
  type TurnNode,
} from './tree';

function node(
  id: string,
  parent: string | null,
  kind: NodeKind,
  line = id,
  figures: { tokens: number; cost: number } = { tokens: 0, cost: 0 },
): TreeNodeView {
  return {
    id,
    parent_id: parent,
    kind,
    first_line: line,
    label: null,
    aborted: false,
    files: [],
    ...figures,
  };
}

function change(path: string, added = 1, removed = 0, status: FileChange['status'] = 'modified') {
  return { path, old_path: null, status, added, removed, binary: false } satisfies FileChange;
}

function withFiles(stored: TreeNodeView, ...files: FileChange[]): TreeNodeView {
  return { ...stored, files };
}

function view(nodes: TreeNodeView[], leaf: string | null): SessionTreeView {
  return { session_id: 's1', leaf_id: leaf, nodes };
}

function ids(turns: TurnNode[]): string[] {
  const out: string[] = [];
  const walk = (turn: TurnNode) => {
    out.push(turn.id);
    turn.children.forEach(walk);
  };
  turns.forEach(walk);
  return out;
}

/** A linear conversation of `n` user/assistant turns under one root. */
function chain(n: number): TreeNodeView[] {
  const nodes: TreeNodeView[] = [];
  let parent: string | null = null;
  for (let i = 0; i < n; i++) {
    const id = `n${i}`;
    nodes.push(node(id, parent, i % 2 === 0 ? 'user' : 'assistant'));
    parent = id;
  }
  return nodes;
}

describe('folding the stored tree into turns', () => {
  it('folds tool results into their turn and changes into markers on the next turn', () => {
    const roots = buildTurns(
      view(
        [
          node('u1', null, 'user', 'fix the parser'),
          node('a1', 'u1', 'assistant', 'Reading it.'),
          node('t1', 'a1', 'tool_result'),
          node('t2', 't1', 'tool_result'),
          node('a2', 't2', 'assistant', 'Fixed.'),
          node('m1', 'a2', 'model_change', 'openai/gpt-5'),
          node('k1', 'm1', 'thinking_level_change', 'high'),
          node('u2', 'k1', 'user', 'thanks'),
          node('a3', 'u2', 'assistant', 'You are welcome.'),
        ],
        'a3',
      ),
    );
    expect(ids(roots)).toEqual(['u1', 'a1', 'a2', 'u2', 'a3']);
    const [u1] = roots;
    const a1 = u1.children[0];
    expect(a1.toolResults).toBe(2);
    const u2 = a1.children[0].children[0];
    expect(u2.markers).toEqual(['model: openai/gpt-5', 'thinking: high']);
    const a3 = u2.children[0];
    expect(a3).toMatchObject({ current: true, leaf: true, onPath: true });
    expect(u1.leaf).toBe(false);
  });

  it('marks the path to the current leaf among branches', () => {
    const roots = buildTurns(
      view(
        [
          node('u1', null, 'user'),
          node('a1', 'u1', 'assistant'),
          node('a1b', 'u1', 'assistant'),
          node('u1e', null, 'user'),
          node('a2', 'u1e', 'assistant'),
        ],
        'a1b',
      ),
    );
    expect(roots.map((r) => r.id)).toEqual(['u1', 'u1e']);
    const all = ids(roots);
    expect(all).toHaveLength(5);
    const leaves: string[] = [];
    const walk = (t: TurnNode) => (t.leaf ? leaves.push(t.id) : t.children.forEach(walk));
    roots.forEach(walk);
    expect(leaves).toEqual(['a1', 'a1b', 'a2']);
    expect(roots[0].children.map((c) => [c.id, c.onPath, c.current])).toEqual([
      ['a1', false, false],
      ['a1b', true, true],
    ]);
    expect(roots[1].onPath).toBe(false);
  });
});

describe('files changed per turn', () => {
  it('gives each turn the union of the paths its nodes and tool results changed', () => {
    const roots = buildTurns(
      view(
        [
          node('u1', null, 'user'),
          node('a1', 'u1', 'assistant'),
          withFiles(node('t1', 'a1', 'tool_result'), change('src/b.rs', 3, 1)),
          withFiles(
            node('t2', 't1', 'tool_result'),
            change('src/b.rs', 2, 2),
            change('src/a.rs', 5, 0, 'added'),
          ),
          withFiles(node('m1', 't2', 'model_change', 'm2'), change('notes.md')),
          node('u2', 'm1', 'user'),
          withFiles(node('a2', 'u2', 'assistant'), change('src/a.rs', 1, 1)),
        ],
        'a2',
      ),
    );
    const [u1] = roots;
    const a1 = u1.children[0];
    const a2 = a1.children[0].children[0];
    expect(u1.files).toEqual([]);
    // One entry per path, sorted, lines summed; a marker's changes count for the turn above it.
    expect(a1.files).toEqual([
      { path: 'notes.md', oldPath: null, status: 'modified', added: 1, removed: 0 },
      { path: 'src/a.rs', oldPath: null, status: 'added', added: 5, removed: 0 },
      { path: 'src/b.rs', oldPath: null, status: 'modified', added: 5, removed: 3 },
    ]);
    expect(a2.files).toEqual([
      { path: 'src/a.rs', oldPath: null, status: 'modified', added: 1, removed: 1 },
    ]);
    // Turns without changes share one empty list (nothing allocated per turn).
    expect(u1.files).toBe(a1.children[0].files);
  });

  it('keeps an added file added, a later delete wins, and a rename keeps its old path', () => {
    const roots = buildTurns(
      view(
        [
          node('u1', null, 'user'),
          withFiles(node('a1', 'u1', 'assistant'), change('new.rs', 4, 0, 'added')),
          withFiles(
            node('t1', 'a1', 'tool_result'),
            change('new.rs', 1, 1),
            change('gone.rs', 0, 0),
            { ...change('lib.rs', 0, 0, 'renamed'), old_path: 'old.rs' },
          ),
          withFiles(node('t2', 't1', 'tool_result'), change('gone.rs', 0, 9, 'deleted')),
        ],
        't2',
      ),
    );
    const files = roots[0].children[0].files;
    expect(files.map((f) => [f.path, f.status, f.oldPath])).toEqual([
      ['gone.rs', 'deleted', null],
      ['lib.rs', 'renamed', 'old.rs'],
      ['new.rs', 'added', null],
    ]);
  });

  it('gives a collapsed run the files of the turns it hides', () => {
    const nodes = chain(10);
    nodes[3] = withFiles(nodes[3], change('a.rs', 2, 0));
    nodes[5] = withFiles(nodes[5], change('a.rs', 1, 1), change('b.rs'));
    const roots = collapseRuns(buildTurns(view(nodes, 'n9')), new Set());
    const run = roots[0].children[0];
    expect(run.kind).toBe('run');
    expect(run.files.map((f) => [f.path, f.added, f.removed])).toEqual([
      ['a.rs', 3, 1],
      ['b.rs', 1, 0],
    ]);
  });

  it('says how many files and lists their paths, cutting long lists', () => {
    const roots = buildTurns(
      view([withFiles(node('u1', null, 'user'), change('a.rs'), change('b.rs'))], 'u1'),
    );
    expect(filesSummary(roots[0].files)).toBe('2 files changed: a.rs, b.rs');
    const many = Array.from({ length: FILES_LISTED + 3 }, (_, i) => ({
      path: `f${String(i).padStart(2, '0')}.rs`,
      oldPath: null,
      status: 'modified' as const,
      added: 1,
      removed: 0,
    }));
    const text = filesSummary(many);
    expect(text).toMatch(/^11 files changed: f00\.rs, f01\.rs/);
    expect(text).toMatch(/, and 3 more$/);
    expect(text).not.toContain(`f${FILES_LISTED}.rs`);
    expect(filesSummary(many.slice(0, 1))).toBe('1 file changed: f00.rs');
  });
});

describe('cost per branch', () => {
  it('sums tokens and dollars from the root down each branch', () => {
    const roots = buildTurns(
      view(
        [
          node('u1', null, 'user'),
          node('a1', 'u1', 'assistant', 'a', { tokens: 100, cost: 0.01 }),
          node('u2', 'a1', 'user'),
          node('a2', 'u2', 'assistant', 'b', { tokens: 50, cost: 0.002 }),
          node('a2b', 'u2', 'assistant', 'c', { tokens: 400, cost: 0.04 }),
        ],
        'a2',
      ),
    );
    const u2 = roots[0].children[0].children[0];
    const [a2, a2b] = u2.children;
    expect([a2.branchTokens, a2.branchCost]).toEqual([150, 0.012]);
    expect([a2b.branchTokens, a2b.branchCost]).toEqual([500, 0.05]);
    expect([a2b.tokens, a2b.cost]).toEqual([400, 0.04]);
  });
});

describe('collapsing long runs', () => {
  it('keeps the ends and folds the middle into one segment, expandable', () => {
    const nodes = chain(12);
    const roots = buildTurns(view(nodes, 'n11'));
    const collapsed = collapseRuns(roots, new Set());
    // n0 → run(n1…n10) → n11 (current, the leaf)
    expect(ids(collapsed)).toEqual(['n0', 'run:n1', 'n11']);
    const segment = collapsed[0].children[0];
    expect(segment).toMatchObject({ kind: 'run', count: 10, onPath: true });
    expect(segment.children[0].parent).toBe(segment);
    expect(ids(collapseRuns(roots, new Set(['run:n1'])))).toHaveLength(12);
    // Short runs stay as they are.
    const short = buildTurns(view(chain(RUN_MIN + 1), null));
    expect(ids(collapseRuns(short, new Set()))).toHaveLength(RUN_MIN + 1);
  });

  it('never hides a branch point, a labelled turn or the current turn', () => {
    const nodes = chain(12);
    nodes[5] = { ...nodes[5], label: 'checkpoint' };
    nodes.push(node('side', 'n8', 'assistant'));
    const collapsed = collapseRuns(buildTurns(view(nodes, 'n6')), new Set());
    const shown = ids(collapsed);
    for (const id of ['n5', 'n6', 'n8', 'side']) expect(shown).toContain(id);
  });
});

describe('the layout', () => {
  it('puts children below parents and keeps nodes of a row apart', () => {
    const nodes: TreeNodeView[] = [node('u1', null, 'user')];
    for (let i = 0; i < 6; i++) {
      nodes.push(node(`a${i}`, 'u1', 'assistant'));
      nodes.push(node(`u${i}x`, `a${i}`, 'user'));
    }
    const layout = layoutTurns(buildTurns(view(nodes, 'u3x')));
    expect(layout.nodes).toHaveLength(13);
    expect(layout.edges).toHaveLength(12);
    for (const edge of layout.edges) expect(edge.to.y).toBeGreaterThan(edge.from.y);
    const rows = new Map<number, number[]>();
    for (const placed of layout.nodes) {
      rows.set(placed.depth, [...(rows.get(placed.depth) ?? []), placed.x]);
    }
    for (const xs of rows.values()) {
      const sorted = [...xs].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++) {
        expect(sorted[i] - sorted[i - 1]).toBeGreaterThanOrEqual(NODE_WIDTH);
      }
    }
    expect(layout.minY).toBe(0);
  });

  it('lays out a deep chain and a wide fan of siblings', () => {
    const deep = layoutTurns(buildTurns(view(chain(300), 'n299')));
    expect(deep.maxY).toBeGreaterThan(deep.minY);
    const fan: TreeNodeView[] = [node('u', null, 'user')];
    for (let i = 0; i < 200; i++) fan.push(node(`a${i}`, 'u', 'assistant'));
    const wide = layoutTurns(buildTurns(view(fan, 'a0')));
    expect(wide.maxX - wide.minX).toBeGreaterThanOrEqual(199 * NODE_WIDTH);
  });
});

describe('a compact layout: siblings side by side', () => {
  /** From one column to the next. */
  const SLOT = NODE_WIDTH + GAP_X;

  function placedOf(layout: Layout): Map<string, Placed> {
    return new Map(layout.nodes.map((placed) => [placed.node.id, placed]));
  }

  it('keeps the two first turns of a five-turn tree branched at its root one slot apart', () => {
    // The first message edited: two user turns at the root (under a model change, which is a
    // marker, not a turn), each with its own answer, one going on.
    const layout = layoutTurns(
      buildTurns(
        view(
          [
            node('m', null, 'model_change', 'anthropic/claude'),
            node('u1', 'm', 'user'),
            node('a1', 'u1', 'assistant'),
            node('u2', 'a1', 'user'),
            node('u1b', 'm', 'user'),
            node('a1b', 'u1b', 'assistant'),
          ],
          'a1b',
        ),
      ),
    );
    expect(layout.nodes).toHaveLength(5);
    const at = placedOf(layout);
    const x = (id: string) => at.get(id)?.x ?? NaN;
    expect(Math.abs(x('u1b') - x('u1'))).toBe(SLOT);
    // Their answers too: turns of different parents are not kept further apart than siblings.
    expect(Math.abs(x('a1b') - x('a1'))).toBe(SLOT);
    expect(layout.maxX - layout.minX).toBe(SLOT);
    expect(at.get('u1')?.y).toBe(at.get('u1b')?.y);
  });

  it('keeps siblings deep in the tree one slot apart, whatever branched above them', () => {
    // A chain of ten turns with a side branch at depth 3, then two siblings at depth 10, each
    // going on for a few turns.
    const nodes = chain(10);
    nodes.push(node('side3', 'n2', 'assistant'), node('side4', 'side3', 'user'));
    for (const branch of ['l', 'r']) {
      nodes.push(node(`${branch}0`, 'n9', 'user'));
      for (let i = 1; i < 4; i++) {
        nodes.push(node(`${branch}${i}`, `${branch}${i - 1}`, i % 2 ? 'assistant' : 'user'));
      }
    }
    const layout = layoutTurns(buildTurns(view(nodes, 'r3')));
    const at = placedOf(layout);
    expect(at.get('l0')?.depth).toBe(10);
    expect(Math.abs((at.get('r0')?.x ?? NaN) - (at.get('l0')?.x ?? NaN))).toBe(SLOT);
    expect(Math.abs((at.get('r3')?.x ?? NaN) - (at.get('l3')?.x ?? NaN))).toBe(SLOT);
    // The side branch at depth 3 sits next to the chain as well.
    expect(Math.abs((at.get('side3')?.x ?? NaN) - (at.get('n3')?.x ?? NaN))).toBe(SLOT);
  });
});

describe('the tidy layout', () => {
  it('places every turn where d3-hierarchy’s tree() does with one slot between neighbours', () => {
    // Random trees, from bushy to long chains with a few branches.
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const [size, stay] of [
      [40, 0.3],
      [300, 0.6],
      [2000, 0.95],
    ]) {
      const nodes: TreeNodeView[] = [node('t0', null, 'user'), node('t1', null, 'user')];
      for (let i = 2; i < size; i++) {
        const parent = random() < stay ? i - 1 : Math.floor(random() * i);
        nodes.push(node(`t${i}`, random() < 0.05 ? null : `t${parent}`, 'user'));
      }
      const roots = buildTurns(view(nodes, `t${size - 1}`));
      const layout = layoutTurns(roots);
      type Top = { top: true; children: TurnNode[] };
      const top = hierarchy<Top | TurnNode>({ top: true, children: roots }, (d) => d.children);
      tidyTree<Top | TurnNode>()
        .nodeSize([NODE_WIDTH + GAP_X, NODE_HEIGHT + GAP_Y])
        .separation(() => 1)(top);
      const expected = top.descendants().slice(1);
      expect(layout.nodes.map((p) => p.node)).toEqual(expected.map((d) => d.data));
      layout.nodes.forEach((placed, i) => {
        expect(placed.x).toBeCloseTo(expected[i].x ?? NaN, 6);
        expect(placed.y).toBe((expected[i].y ?? NaN) - (NODE_HEIGHT + GAP_Y));
        expect(placed.depth).toBe(expected[i].depth - 1);
      });
      expect(layout.edges).toHaveLength(size - roots.length);
      for (const edge of layout.edges) expect(edge.to.node.parent).toBe(edge.from.node);
    }
  });
});

describe('drawing only what is on screen', () => {
  it('keeps the nodes in the viewport (and a margin) of a 10,000-turn chain', () => {
    const layout = layoutTurns(buildTurns(view(chain(10_000), 'n9999')));
    const shown = visiblePart(layout, { x: 200, y: 20, k: 1 }, 400, 600);
    expect(shown.nodes.length).toBeGreaterThan(5);
    expect(shown.nodes.length).toBeLessThan(20);
    expect(shown.nodes[0].node.id).toBe('n0');
    // Scrolled to the end: the last turns.
    const last = layout.nodes[layout.nodes.length - 1];
    const atEnd = visiblePart(layout, { x: 200, y: 300 - last.y, k: 1 }, 400, 600);
    expect(atEnd.nodes.map((p) => p.node.id)).toContain('n9999');
    expect(atEnd.nodes.map((p) => p.node.id)).not.toContain('n0');
    // Before the panel has a size, everything is kept.
    expect(visiblePart(layout, { x: 0, y: 0, k: 1 }, 0, 0).nodes).toHaveLength(10_000);
  });
});

describe('keyboard moves', () => {
  it('go to the parent, the child on the path, and siblings', () => {
    const roots = buildTurns(
      view(
        [node('u1', null, 'user'), node('a1', 'u1', 'assistant'), node('a2', 'u1', 'assistant')],
        'a2',
      ),
    );
    const [u1] = roots;
    const [a1, a2] = u1.children;
    expect(neighbour(u1, 'ArrowDown', roots)).toBe(a2);
    expect(neighbour(a2, 'ArrowUp', roots)).toBe(u1);
    expect(neighbour(a2, 'ArrowLeft', roots)).toBe(a1);
    expect(neighbour(a1, 'ArrowLeft', roots)).toBeNull();
    expect(neighbour(u1, 'ArrowRight', roots)).toBeNull();
  });

  it('shortens long first lines', () => {
    expect(shorten('a  b\nc')).toBe('a b c');
    expect(shorten('x'.repeat(40), 10)).toBe('xxxxxxxxx…');
  });
});

describe('branches left and where a turn ends', () => {
  const tree = view(
    [
      node('u1', null, 'user'),
      node('a1', 'u1', 'assistant'),
      node('t1', 'a1', 'tool_result'),
      node('t2', 't1', 'tool_result'),
      node('a2', 't2', 'assistant'),
      node('u2', 'a2', 'user'),
      node('a1b', 'u1', 'assistant'),
      node('u3', null, 'user'),
    ],
    'u2',
  );

  it('sees another branch left, but not a move up or down the same one', () => {
    expect(leftBranch(tree, 'u2', 'a1b')).toBe(true);
    expect(leftBranch(tree, 'a1b', 'u3')).toBe(true);
    expect(leftBranch(tree, 'u2', 'a1')).toBe(false);
    expect(leftBranch(tree, 'a1', 'u2')).toBe(false);
    expect(leftBranch(tree, 'u2', 'u2')).toBe(false);
    expect(leftBranch(tree, null, 'u2')).toBe(false);
    expect(leftBranch(tree, 'u2', null)).toBe(false);
    expect(leftBranch(tree, 'gone', 'u2')).toBe(false);
  });

  it('ends a turn after the tool results it folds in', () => {
    expect(turnEnd(tree, 'a1')).toBe('t2');
    expect(turnEnd(tree, 'a2')).toBe('a2');
    expect(turnEnd(tree, 'u1')).toBe('u1');
  });
});

describe('nodes stored since the last read', () => {
  const known = view([node('u1', null, 'user'), node('a1', 'u1', 'assistant')], 'a1');

  it('appends them and moves the leaf', () => {
    const merged = mergeDelta(known, {
      session_id: 's1',
      leaf_id: 'a2',
      from: 2,
      nodes: [node('u2', 'a1', 'user'), node('a2', 'u2', 'assistant')],
    });
    expect(merged?.nodes.map((n) => n.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(merged?.leaf_id).toBe('a2');
    // The known nodes are the same objects: nothing before them is read again.
    expect(merged?.nodes[0]).toBe(known.nodes[0]);
  });

  it('keeps the tree itself when nothing changed, and moves only the leaf on a visit', () => {
    expect(mergeDelta(known, { session_id: 's1', leaf_id: 'a1', from: 2, nodes: [] })).toBe(known);
    const moved = mergeDelta(known, { session_id: 's1', leaf_id: 'u1', from: 2, nodes: [] });
    expect(moved?.leaf_id).toBe('u1');
    expect(moved?.nodes).toBe(known.nodes);
  });

  it('refuses a delta of another session or another count', () => {
    expect(mergeDelta(known, { session_id: 's2', leaf_id: null, from: 2, nodes: [] })).toBeNull();
    expect(mergeDelta(known, { session_id: 's1', leaf_id: 'a1', from: 1, nodes: [] })).toBeNull();
  });
});
