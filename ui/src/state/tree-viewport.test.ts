import { describe, expect, it } from 'vitest';
import type { TreeNodeView } from '../ipc/wire';
import { buildTurns, layoutTurns } from './tree';
import {
  centreOn,
  fitView,
  fromMinimap,
  MIN_SCALE,
  minimapOf,
  minimapViewport,
  READABLE,
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
