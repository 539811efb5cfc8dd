import { describe, expect, it } from 'vitest';
import type { NodeKind, TreeNodeView } from '../ipc/wire';
import {
  buildTurns,
  layoutTurns,
  NODE_HEIGHT,
  NODE_WIDTH,
  type Layout,
  type Viewport,
} from './tree';
import {
  centreOn,
  fitView,
  fromMinimap,
  MIN_SCALE,
  minimapOf,
  minimapViewport,
  READ_WHOLE,
  READABLE,
  READING_SCALE,
  zoomAt,
} from './tree-viewport';

function fan(n: number): TreeNodeView[] {
  const base = { label: null, aborted: false, tokens: 0, cost: 0, files: [] };
  const nodes: TreeNodeView[] = [
    { id: 'u', parent_id: null, kind: 'user', first_line: 'u', ...base },
  ];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `a${i}`, parent_id: 'u', kind: 'assistant', first_line: `a${i}`, ...base });
  }
  return nodes;
}

function stored(id: string, parent: string | null, kind: NodeKind): TreeNodeView {
  return {
    id,
    parent_id: parent,
    kind,
    first_line: id,
    label: null,
    aborted: false,
    tokens: 0,
    cost: 0,
    files: [],
  };
}

/** Five turns, two branches at the root (the first message edited), the leaf on the second. */
const FIVE: TreeNodeView[] = [
  stored('u1', null, 'user'),
  stored('a1', 'u1', 'assistant'),
  stored('u2', 'a1', 'user'),
  stored('u1b', null, 'user'),
  stored('a1b', 'u1b', 'assistant'),
];

/** 50 turns: a chain of 30 with four branches of five turns hanging off it. */
function fifty(): TreeNodeView[] {
  const nodes: TreeNodeView[] = [];
  for (let i = 0; i < 30; i++) {
    nodes.push(stored(`n${i}`, i ? `n${i - 1}` : null, i % 2 ? 'assistant' : 'user'));
  }
  for (const [b, at] of [4, 11, 18, 25].entries()) {
    for (let i = 0; i < 5; i++) {
      const parent = i ? `b${b}-${i - 1}` : `n${at}`;
      nodes.push(stored(`b${b}-${i}`, parent, i % 2 ? 'user' : 'assistant'));
    }
  }
  return nodes;
}

/** Whether the turn `id`'s whole box is on a `width` × `height` screen. */
function onScreen(layout: Layout, view: Viewport, id: string, width: number, height: number) {
  const placed = layout.nodes.find((p) => p.node.id === id);
  if (!placed) throw new Error(`no turn ${id}`);
  const left = (placed.x - NODE_WIDTH / 2) * view.k + view.x;
  const top = (placed.y - NODE_HEIGHT / 2) * view.k + view.y;
  return (
    left >= 0 &&
    left + NODE_WIDTH * view.k <= width &&
    top >= 0 &&
    top + NODE_HEIGHT * view.k <= height
  );
}

describe('fitting at the reading size', () => {
  it('shows a five-turn tree branched at its root at the reading size, current path in view', () => {
    const layout = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'a1b', nodes: FIVE }));
    // The widest tree panel holds it whole, at the reading size.
    const wide = fitView(layout, 440, 500, true);
    expect(wide?.k).toBe(READING_SCALE);
    for (const id of ['u1', 'a1', 'u2', 'u1b', 'a1b']) {
      expect(wide && onScreen(layout, wide, id, 440, 500)).toBe(true);
    }
    // The narrowest one does not: Fit keeps the reading size and shows the current path.
    for (const whole of [true, false]) {
      const narrow = fitView(layout, 300, 500, whole);
      expect(narrow?.k).toBe(READING_SCALE);
      expect(narrow && onScreen(layout, narrow, 'a1b', 300, 500)).toBe(true);
      expect(narrow && onScreen(layout, narrow, 'u1b', 300, 500)).toBe(true);
    }
    // The top of the tree at the top of the panel.
    const narrow = fitView(layout, 300, 500, true);
    expect(narrow && layout.minY + narrow.y - (NODE_HEIGHT / 2) * narrow.k).toBe(20);
  });

  it('fits a branched tree of 50 turns at the reading size, its current leaf in view', () => {
    const nodes = fifty();
    for (const leaf of ['n29', 'b0-4', 'b3-4', 'n0']) {
      const layout = layoutTurns(buildTurns({ session_id: 's', leaf_id: leaf, nodes }));
      expect(layout.nodes).toHaveLength(READ_WHOLE);
      for (const [width, height] of [
        [300, 600],
        [440, 900],
        [180, 120],
      ]) {
        const view = fitView(layout, width, height, true);
        expect(view?.k).toBeGreaterThanOrEqual(READING_SCALE);
        // A panel narrower than a node centres the leaf; else the leaf is whole on screen.
        if (width >= NODE_WIDTH + 40 && height >= NODE_HEIGHT + 40) {
          expect(view && onScreen(layout, view, leaf, width, height)).toBe(true);
        } else {
          const placed = layout.nodes.find((p) => p.node.id === leaf);
          expect(placed && view && placed.x * view.k + view.x).toBeCloseTo(width / 2);
        }
      }
    }
  });

  it('still overviews a tree of more than 50 turns', () => {
    const nodes = [...fifty(), stored('extra', 'n29', 'user')];
    const layout = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'extra', nodes }));
    expect(layout.nodes.length).toBeGreaterThan(READ_WHOLE);
    expect(fitView(layout, 300, 600, true)?.k).toBeLessThan(READING_SCALE);
  });
});

describe('pan and zoom', () => {
  it('fits a small tree whole and shows the top of a big one readable', () => {
    const small = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'a0', nodes: fan(1) }));
    expect(fitView(small, 400, 600, false)?.k).toBe(1);
    const big = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'a150', nodes: fan(300) }));
    const top = fitView(big, 400, 600, false);
    expect(top?.k).toBe(READABLE);
    // The current turn is in the middle.
    const current = big.nodes.find((p) => p.node.id === 'a150');
    expect(current && top && current.x * top.k + top.x).toBeCloseTo(200);
    expect(fitView(big, 400, 600, true)?.k).toBeLessThan(READABLE);
    expect(fitView(big, 0, 0, true)).toBeNull();
    // Too big even at the smallest zoom: Fit shows the current turn's neighbourhood at it.
    const huge = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'a2000', nodes: fan(4000) }));
    const around = fitView(huge, 400, 600, true);
    expect(around?.k).toBe(MIN_SCALE);
    const leaf = huge.nodes.find((p) => p.node.id === 'a2000');
    expect(leaf && around && leaf.x * around.k + around.x).toBeCloseTo(200);
    expect(leaf && around && leaf.y * around.k + around.y).toBeCloseTo(300);
  });

  it('zooms about a point and centres on one', () => {
    const view = zoomAt({ x: 0, y: 0, k: 1 }, 2, 100, 50);
    expect(view).toEqual({ k: 2, x: -100, y: -50 });
    expect(centreOn(view, 10, 20, 400, 300)).toEqual({ k: 2, x: 180, y: 110 });
  });
});

describe('the minimap', () => {
  it('draws 10,000 nodes as one path, the current path as another', () => {
    const nodes = fan(10_000);
    const layout = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'a42', nodes }));
    const map = minimapOf(layout, 120, 80);
    expect(map.all.match(/M/g)).toHaveLength(10_001);
    expect(map.path.match(/M/g)).toHaveLength(2);
    // Inside the minimap.
    const numbers = map.all.split(/[Mh ]/).filter(Boolean).map(Number);
    expect(Math.min(...numbers)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...numbers)).toBeLessThanOrEqual(120);
  });

  it('maps the viewport onto it and its points back', () => {
    const layout = layoutTurns(buildTurns({ session_id: 's', leaf_id: 'a0', nodes: fan(20) }));
    const map = minimapOf(layout);
    const view = { x: 0, y: 0, k: 1 };
    const box = minimapViewport(map, view, 400, 300);
    expect(box.width).toBeCloseTo(400 * map.scale);
    const point = fromMinimap(map, box.x, box.y);
    expect(point.x).toBeCloseTo(0);
    expect(point.y).toBeCloseTo(0);
  });
});
