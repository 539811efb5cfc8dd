// The tree panel as Svelte state: the pure reducer (tree-panel.ts) fed by the tree panel's
// commands and the chat's stream, and the layout drawn from it. The tree is kept up to date as
// the chat grows: each node the stream stores comes with its view and is appended at once (no
// read after a run); otherwise only the nodes stored since the last read cross over. A turn
// appended under the leaf is placed without laying the whole tree out again. Going to a turn,
// comparing two branches, the offer to summarise a branch left behind and what a restore or its
// undo did go through here; the view (pan and zoom) lives here too, so the panel only draws and
// moves the keyboard focus.
import * as ipc from '../ipc';
import type {
  ArborError,
  FilesRestored,
  NodeVisit,
  RestoreInfo,
  SessionEvent,
  SessionTreeView,
} from '../ipc';
import type { ChatStore } from './chat.svelte';
import { buildTurns, collapseRuns, mergeDelta, type TurnNode, type Viewport } from './tree';
import {
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
  type KeyCommand,
  type LaidOut,
  type TreePanelAction,
  type TreePanelState,
} from './tree-panel';
import { TreePreview } from './tree-preview.svelte';
import { fitView, zoomAt } from './tree-viewport';

/** How long the chat must stay still before the tree is read again. */
export const RELOAD_DELAY = 60;

export interface TreePanelOptions {
  /** The window's chat (a getter: the panel's prop may change). */
  chat: () => ChatStore;
  /** Where errors are reported (the window's error banner). */
  onerror: (error: ArborError) => void;
}

export class TreePanelStore {
  #state = $state.raw<TreePanelState>(INITIAL_PANEL);
  // Each part on its own: a change of the selection does not lay the tree out again.
  readonly tree = $derived(this.#state.tree);
  readonly expanded = $derived(this.#state.expanded);
  readonly selected = $derived(this.#state.selected);
  readonly picked = $derived(this.#state.picked);
  readonly comparison = $derived(this.#state.comparison);
  readonly leftLeaf = $derived(this.#state.leftLeaf);
  readonly summarizing = $derived(this.#state.summarizing);
  readonly restoring = $derived(this.#state.restoring);
  readonly undoable = $derived(this.#state.undoable);
  readonly restoreNote = $derived(this.#state.restoreNote);

  /** The pan and zoom, and the size of the drawing (bound to the canvas). */
  view = $state<Viewport>({ x: 0, y: 0, k: 1 });
  width = $state(0);
  height = $state(0);

  /** The hovered or focused turn's preview. */
  readonly preview = new TreePreview();

  readonly roots = $derived(this.tree ? collapseRuns(buildTurns(this.tree), this.expanded) : []);
  // The last layout made: while the chat only appends turns, the next one grows from it.
  #laidOut: LaidOut | null = null;
  readonly layout = $derived.by(() => {
    const { tree, expanded } = this;
    const layout = nextLayout(this.#laidOut, tree, expanded, this.roots);
    this.#laidOut = tree ? { tree, expanded, layout } : null;
    return layout;
  });
  readonly byId = $derived(placedById(this.layout));
  readonly current = $derived(this.layout.nodes.find((placed) => placed.node.current));
  /** The turn the header's figures are about: the selected one, else the current. */
  readonly focusTurn = $derived(focusTurnOf(this.selected, this.byId, this.current));
  /** The turn the node menu is about. */
  readonly menuTurn = $derived(menuTurnOf(this.selected, this.byId));
  readonly pickedTurn = $derived(this.picked ? (this.byId.get(this.picked)?.node ?? null) : null);

  /**
   * What changes the tree: another session, a stored node more (or less, on a new branch), or
   * another process writing to the session.
   */
  readonly reloadKey = $derived.by(() => {
    const chat = this.#chat();
    return `${chat.model?.sessionId ?? ''}|${chat.items.length}|${chat.items.at(-1)?.nodeId ?? ''}|${chat.externalVersion}`;
  });

  #chat: () => ChatStore;
  #onerror: (error: ArborError) => void;
  /** `chat.externalVersion` as of the last read. */
  #readExternal = 0;
  /** The session last fitted into the panel. */
  #fittedSession: string | null = null;
  /** The search hit last selected. */
  #highlighted: string | null = null;
  /** The current turn last brought into view. */
  #lastCurrent: string | null = null;

  constructor({ chat, onerror }: TreePanelOptions) {
    this.#chat = chat;
    this.#onerror = onerror;
  }

  /** The whole state, as the reducer sees it. */
  get state(): TreePanelState {
    return this.#state;
  }

  #apply(action: TreePanelAction): void {
    this.#state = reduce(this.#state, action);
  }

  #report(raw: unknown): void {
    this.#onerror(ipc.toArborError(raw));
  }

  /** Asks once whether the project has a restore to undo. */
  checkUndo(): void {
    ipc.canUndoRestore().then(
      (can) => this.#apply({ type: 'can_undo', can }),
      // A project without recorded files: nothing to undo, nothing to say.
      () => {},
    );
  }

  /** Reads the tree again a moment after `reloadKey` changed; call from an effect (it reads
   * the key) and call what it returns when the effect goes. */
  watch(): () => void {
    void this.reloadKey;
    const timer = setTimeout(() => {
      this.reload().catch((raw) => this.#report(raw));
    }, RELOAD_DELAY);
    return () => clearTimeout(timer);
  }

  /**
   * Takes one event of the chat's stream (fed by `ChatStore.listen`): a node stored with its
   * view is appended to the tree at once, and the leaf moves to it.
   */
  receive(event: SessionEvent): void {
    if (event.type !== 'node_appended') return;
    const before = this.tree;
    this.#apply({
      type: 'node_appended',
      sessionId: event.session_id,
      nodeId: event.node_id,
      node: event.node ?? null,
    });
    if (this.tree && this.tree !== before) this.preview.treeSize(this.tree.nodes.length);
  }

  /**
   * Nothing when the tree already ends where the chat does (the stream appended its nodes);
   * else only the nodes stored since the last read cross over (a 10,000-node tree is not sent
   * again for each new message); the whole tree when that does not fit what the panel knows,
   * or when another process wrote to the session (its labels, its nodes: read it all again).
   */
  async reload(): Promise<void> {
    const known = this.tree;
    const chat = this.#chat();
    const external = chat.externalVersion;
    const fresh = external === this.#readExternal;
    this.#readExternal = external;
    const model = chat.model;
    if (fresh && model && showsLeaf(this.#state, model.sessionId, model.leafId)) return;
    if (known?.session_id && fresh) {
      const delta = await ipc.sessionTreeSince(known.nodes.length);
      // The stream appended a node while the read was on its way: the answer may predate it,
      // so read again from what the panel knows now rather than drop that node.
      if (this.tree !== known) return this.reload();
      const merged = mergeDelta(known, delta);
      if (merged) {
        if (merged !== this.tree) this.#setTree(merged);
        return;
      }
    }
    const whole = await ipc.sessionTree();
    if (known?.session_id && this.tree !== known) return this.reload();
    this.#setTree(whole);
  }

  #setTree(loaded: SessionTreeView): void {
    this.preview.treeSize(loaded.nodes.length);
    this.#apply({ type: 'tree_loaded', tree: loaded });
  }

  /** A label saved from the node menu: the tree it answered (previews may show the old one). */
  labelled(tree: SessionTreeView): void {
    this.preview.clear();
    this.#setTree(tree);
  }

  select(id: string): void {
    this.#apply({ type: 'select', id });
  }

  /** Selects `id` and keeps it in view (the keyboard's selection, a search hit). */
  selectInView(id: string): void {
    this.select(id);
    const placed = this.byId.get(id);
    if (!placed) return;
    const next = keepInView(this.view, placed, this.width, this.height);
    if (next) this.view = next;
  }

  /** Goes to a turn (a collapsed run opens instead). */
  async visit(node: TurnNode): Promise<void> {
    if (node.kind === 'run') {
      this.#apply({ type: 'expand', id: node.id });
      return;
    }
    // A new visit replaces the offer of the last one.
    this.#apply({ type: 'visit', id: node.id });
    const before = this.tree;
    const oldLeaf = this.#state.knownLeaf;
    try {
      this.#landedAt(await ipc.visitNode(node.id), before, oldLeaf);
    } catch (raw) {
      this.#report(raw);
    }
  }

  /** Shows where a visit landed (a user message's text back in the composer) and offers to
   * summarise the branch left behind. */
  #landedAt(landed: NodeVisit, before: SessionTreeView | null, oldLeaf: string | null): void {
    const chat = this.#chat();
    chat.show(landed.view);
    if (landed.editor_text !== null) chat.draft = landed.editor_text;
    const newLeaf = landed.view.entries.at(-1)?.node_id ?? null;
    this.#apply({ type: 'landed', before, oldLeaf, newLeaf });
  }

  /** The last stored node of a turn: where its branch ends. */
  end(id: string): string {
    return branchEnd(this.tree, id);
  }

  /** The menu's Compare: pick side A, drop it, or compare it with the selected turn. */
  async compare(): Promise<void> {
    const turn = this.menuTurn;
    if (!turn) return;
    const pair = comparePair(this.#state, turn.id);
    if (!pair) {
      this.#apply({ type: 'pick', id: turn.id });
      return;
    }
    try {
      const comparison = await ipc.compareBranches(pair.left, pair.right);
      this.#apply({ type: 'compared', comparison });
    } catch (raw) {
      this.#report(raw);
    }
  }

  unpick(): void {
    this.#apply({ type: 'unpick' });
  }

  closeComparison(): void {
    this.#apply({ type: 'close_comparison' });
  }

  /** Summarises the branch left behind into the one shown. */
  async summarize(): Promise<void> {
    const old = summarizable(this.#state);
    if (!old) return;
    this.#apply({ type: 'summarize_start' });
    try {
      this.#chat().show(await ipc.summarizeLeft(old));
      this.#apply({ type: 'summarized', old });
    } catch (raw) {
      this.#report(raw);
    } finally {
      this.#apply({ type: 'summarize_end' });
    }
  }

  dismissOffer(): void {
    this.#apply({ type: 'dismiss_offer' });
  }

  /** "Restore files to here…": the restore dialog for `turn`. */
  openRestore(turn: TurnNode): void {
    this.#apply({ type: 'open_restore', turn });
  }

  closeRestore(): void {
    this.#apply({ type: 'close_restore' });
  }

  /** A restore done from the dialog: where it went (as a visit does), and what it did. */
  restored(turn: TurnNode, result: FilesRestored): void {
    const visitedTurn = result.visit ? turn.id : null;
    this.#apply({ type: 'restored', info: result.restore, visitedTurn });
    if (result.visit) this.#landedAt(result.visit, this.tree, this.#state.knownLeaf);
    this.reload().catch((raw) => this.#report(raw));
  }

  undone(info: RestoreInfo): void {
    this.#apply({ type: 'undone', info });
    this.reload().catch((raw) => this.#report(raw));
  }

  undoFailed(error: ArborError): void {
    if (isNothingToUndo(error)) {
      this.#apply({ type: 'nothing_to_undo' });
      return;
    }
    this.#onerror(error);
  }

  /** What `key` does on the tree, as things are now. */
  keyCommand(key: string): KeyCommand {
    const at = this.selected ? this.byId.get(this.selected)?.node : undefined;
    return keyCommand(key, at, this.current?.node, this.roots, this.picked);
  }

  /** Fits the tree into the panel (`whole`: the Fit button; else a session's first view): a
   * small tree at the reading size, on the current path if it is bigger than the panel (the rule
   * is `fitView`'s). */
  fit(whole = false): void {
    const next = fitView(this.layout, this.width, this.height, whole);
    if (next) this.view = next;
  }

  /** Zooms about the middle of the panel. */
  zoom(factor: number): void {
    this.view = zoomAt(this.view, factor, this.width / 2, this.height / 2);
  }

  /** A session shown for the first time is fitted into the panel. For an effect. */
  fitFirstShown(): void {
    if (!this.tree || this.width === 0 || this.layout.nodes.length === 0) return;
    if (this.#fittedSession === this.tree.session_id) return;
    this.#fittedSession = this.tree.session_id;
    this.fit();
  }

  /** When the current turn moves out of sight (another branch chosen, a new turn), brings it
   * back. For an effect. */
  followCurrent(): void {
    const current = this.current;
    if (!current || this.width === 0 || current.node.id === this.#lastCurrent) return;
    this.#lastCurrent = current.node.id;
    const next = followCurrent(this.view, current, this.width, this.height);
    if (next) this.view = next;
  }

  /**
   * A search hit's node, once it is in the tree: the drawn turn to select and focus (each hit
   * once), else `null`. For an effect.
   */
  highlight(nodeId: string | null): string | null {
    if (!nodeId || nodeId === this.#highlighted || !this.tree) return null;
    const id = highlightTarget(this.tree, this.byId, nodeId);
    if (!id) return null;
    this.#highlighted = nodeId;
    return id;
  }

  dispose(): void {
    this.preview.dispose();
  }
}
