// The tree panel's pan and zoom, pure: fitting the layout into the panel, zooming about a
// point, centring on a point, and the minimap — the whole layout drawn as one SVG path (a short
// segment per node, so 10,000 nodes stay one element) with the panel's viewport over it.
import { NODE_HEIGHT, NODE_WIDTH, type Layout, type Placed, type Viewport } from './tree';

/**
 * The reading size: node text at its own CSS size (12px first lines, TreeNode.svelte). Fit never
 * shows a tree of up to `READ_WHOLE` drawn turns smaller than this.
 */
export const READING_SCALE = 1;

/** Trees of up to this many drawn turns (a collapsed run counts once) are fitted at
 * `READING_SCALE` whatever their width: a small tree is read, not overviewed. */
export const READ_WHOLE = 50;

/** Below this scale node text is too small to read: fitting a big tree then centres the current
 * turn. */
export const READABLE = 0.6;

/** Below this zoom node text could not be read: nodes are drawn as boxes only. */
export const DETAIL_SCALE = 0.35;

/** The smallest zoom: nodes are still shapes, and a screenful stays a few hundred of them. */
export const MIN_SCALE = 0.15;

/** Room left between the tree and the panel's edges (screen pixels). */
const MARGIN = 20;

/**
 * How the panel shows a layout when it is fitted (`whole`: the Fit button; else the first view
 * of a session). `null` before there is anything to fit. The rule:
 * - A tree that fits the panel at the reading size (`READING_SCALE`) is shown whole at it,
 *   centred (never enlarged).
 * - A tree of up to `READ_WHOLE` drawn turns that does not fit stays at the reading size — it is
 *   never shrunk to fit — and the view goes to the current path instead (`aroundPath`): the
 *   current turn always in view, and as much of the path from the root down to it as the panel
 *   holds, starting with the top of the tree.
 * - A bigger tree: Fit shows it whole if that keeps it above `MIN_SCALE`, else its current turn's
 *   neighbourhood at `MIN_SCALE`; the first view shows it whole if that is `READABLE`, else the
 *   top of the tree at `READABLE`, centred on the current turn's column.
 */
export function fitView(
  layout: Layout,
  width: number,
  height: number,
  whole: boolean,
): Viewport | null {
  if (layout.nodes.length === 0 || width === 0) return null;
  const spanX = layout.maxX - layout.minX + NODE_WIDTH + 2 * MARGIN;
  const spanY = layout.maxY - layout.minY + NODE_HEIGHT + 2 * MARGIN;
  const fits = Math.min(READING_SCALE, width / spanX, height / spanY);
  const current = layout.nodes.find((placed) => placed.node.current) ?? layout.nodes[0];
  const wholeAt = (k: number): Viewport => ({
    k,
    x: width / 2 - ((layout.minX + layout.maxX) / 2) * k,
    y: MARGIN + (NODE_HEIGHT / 2) * k - layout.minY * k,
  });
  if (fits >= READING_SCALE) return wholeAt(fits);
  if (layout.nodes.length <= READ_WHOLE) return aroundPath(layout, current, width, height);
  if ((whole && fits >= MIN_SCALE) || fits >= READABLE) return wholeAt(fits);
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
    y: MARGIN + (NODE_HEIGHT / 2) * READABLE - layout.minY * READABLE,
  };
}

/** `value` within [`low`, `high`]; the middle of the two when they cross. */
function clamp(value: number, low: number, high: number): number {
  return low > high ? (low + high) / 2 : Math.min(high, Math.max(low, value));
}

/**
 * The view at `READING_SCALE` of a tree wider or taller than the panel, on its current path.
 * Across: the middle of the path's columns, moved so the tree fills the panel (no empty side
 * while it is wider), then so the current turn is whole on screen. Down: the top of the tree,
 * unless the current turn would be below the panel: then the current turn at the bottom, with
 * the path above it. A panel smaller than a node centres the current turn.
 */
function aroundPath(layout: Layout, current: Placed, width: number, height: number): Viewport {
  const k = READING_SCALE;
  let left = current.x;
  let right = current.x;
  for (const placed of layout.nodes) {
    if (!placed.node.onPath) continue;
    left = Math.min(left, placed.x);
    right = Math.max(right, placed.x);
  }
  // Centre of the view, in layout coordinates.
  const halfW = width / 2 / k;
  const halfH = height / 2 / k;
  const edgeX = NODE_WIDTH / 2 + MARGIN / k;
  const edgeY = NODE_HEIGHT / 2 + MARGIN / k;
  let cx = (left + right) / 2;
  cx = clamp(cx, layout.minX - edgeX + halfW, layout.maxX + edgeX - halfW);
  cx = clamp(cx, current.x - halfW + edgeX, current.x + halfW - edgeX);
  let cy = layout.minY - edgeY + halfH;
  cy = clamp(cy, current.y - halfH + edgeY, current.y + halfH - edgeY);
  return { k, x: width / 2 - cx * k, y: height / 2 - cy * k };
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
