// The tree panel's pan and zoom, pure: fitting the layout into the panel, zooming about a
// point, centring on a point, and the minimap — the whole layout drawn as one SVG path (a short
// segment per node, so 10,000 nodes stay one element) with the panel's viewport over it.
import { NODE_HEIGHT, NODE_WIDTH, type Layout, type Viewport } from './tree';

/** Below this scale node text is too small to read: fitting then centres the current turn. */
export const READABLE = 0.6;

/** Below this zoom node text could not be read: nodes are drawn as boxes only. */
export const DETAIL_SCALE = 0.35;

/** The smallest zoom: nodes are still shapes, and a screenful stays a few hundred of them. */
export const MIN_SCALE = 0.15;

/**
 * The whole layout in a `width` × `height` panel (`whole`: the Fit button) or, when that would
 * be too small to read, the top of the tree around the current turn (the first view of a
 * session). A tree too big to fit even at the smallest zoom is shown at that zoom around the
 * current turn. `null` before there is anything to fit.
 */
export function fitView(
  layout: Layout,
  width: number,
  height: number,
  whole: boolean,
): Viewport | null {
  if (layout.nodes.length === 0 || width === 0) return null;
  const spanX = layout.maxX - layout.minX + NODE_WIDTH + 40;
  const spanY = layout.maxY - layout.minY + NODE_HEIGHT + 40;
  const fits = Math.min(1, width / spanX, height / spanY);
  const current = layout.nodes.find((placed) => placed.node.current) ?? layout.nodes[0];
  if ((whole && fits >= MIN_SCALE) || fits >= READABLE) {
    return {
      k: fits,
      x: width / 2 - ((layout.minX + layout.maxX) / 2) * fits,
      y: 20 + (NODE_HEIGHT / 2) * fits - layout.minY * fits,
    };
  }
  if (whole) {
    return {
      k: MIN_SCALE,
      x: width / 2 - current.x * MIN_SCALE,
      y: height / 2 - current.y * MIN_SCALE,
    };
  }
  // Too big to read whole: the top of the tree, centred on the current turn's column.
  return {
    k: READABLE,
    x: width / 2 - current.x * READABLE,
    y: 20 + (NODE_HEIGHT / 2) * READABLE - layout.minY * READABLE,
  };
}

/** Zooms by `factor` keeping the screen point (`cx`, `cy`) where it is. */
export function zoomAt(view: Viewport, factor: number, cx: number, cy: number): Viewport {
  const k = Math.max(MIN_SCALE, Math.min(2.5, view.k * factor));
  const ratio = k / view.k;
  return { k, x: cx - (cx - view.x) * ratio, y: cy - (cy - view.y) * ratio };
}

/** The view with the layout point (`x`, `y`) in the middle of a `width` × `height` panel. */
export function centreOn(
  view: Viewport,
  x: number,
  y: number,
  width: number,
  height: number,
): Viewport {
  return { ...view, x: width / 2 - x * view.k, y: height / 2 - y * view.k };
}

export const MINIMAP_WIDTH = 120;
export const MINIMAP_HEIGHT = 80;

/** The minimap of a layout: minimap = layout × scale + (dx, dy). */
export interface Minimap {
  scale: number;
  dx: number;
  dy: number;
  /** Every node, and the nodes of the current path, as `d` of one path each. */
  all: string;
  path: string;
  /** Stroke width of a node's segment. */
  thickness: number;
}

const round = (value: number) => Math.round(value * 10) / 10;

export function minimapOf(layout: Layout, width = MINIMAP_WIDTH, height = MINIMAP_HEIGHT): Minimap {
  const pad = 4;
  const spanX = layout.maxX - layout.minX + NODE_WIDTH;
  const spanY = layout.maxY - layout.minY + NODE_HEIGHT;
  const scale = Math.min((width - 2 * pad) / spanX, (height - 2 * pad) / spanY);
  const dx = (width - spanX * scale) / 2 - (layout.minX - NODE_WIDTH / 2) * scale;
  const dy = (height - spanY * scale) / 2 - (layout.minY - NODE_HEIGHT / 2) * scale;
  const length = round(Math.max(1, NODE_WIDTH * scale));
  const all: string[] = [];
  const path: string[] = [];
  for (const placed of layout.nodes) {
    const segment = `M${round(placed.x * scale + dx - length / 2)} ${round(placed.y * scale + dy)}h${length}`;
    all.push(segment);
    if (placed.node.onPath) path.push(segment);
  }
  return {
    scale,
    dx,
    dy,
    all: all.join(''),
    path: path.join(''),
    thickness: Math.max(1.5, Math.min(6, NODE_HEIGHT * scale)),
  };
}

/** The part of the layout a `width` × `height` panel shows, in minimap coordinates. */
export function minimapViewport(
  map: Minimap,
  view: Viewport,
  width: number,
  height: number,
): { x: number; y: number; width: number; height: number } {
  return {
    x: (-view.x / view.k) * map.scale + map.dx,
    y: (-view.y / view.k) * map.scale + map.dy,
    width: (width / view.k) * map.scale,
    height: (height / view.k) * map.scale,
  };
}

/** The layout point under a minimap point. */
export function fromMinimap(map: Minimap, mx: number, my: number): { x: number; y: number } {
  return { x: (mx - map.dx) / map.scale, y: (my - map.dy) / map.scale };
}
