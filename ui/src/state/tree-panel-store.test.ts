// The tree panel's store (tree-panel.svelte.ts) over the fake ipc (test-ipc.ts); its pure
// reducer is tested in tree-panel.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import * as ipc from '../ipc';
import type {
  AgentMessage,
  SessionEvent,
  SessionTreeDelta,
  SessionTreeView,
  TreeNodeView,
} from '../ipc/wire';
import { appendedEvent, landedAt, reply, STATE, TREE } from '../test-ipc';
import { ChatStore } from './chat.svelte';
import { NODE_WIDTH, type TurnNode } from './tree';
import { RELOAD_DELAY, TreePanelStore } from './tree-panel.svelte';

vi.mock('../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../ipc')>());
});

describe('the tree panel store', () => {
  let chat: ChatStore;
  let onerror: Mock<(error: ipc.ArborError) => void>;

  async function loaded(): Promise<TreePanelStore> {
    const store = new TreePanelStore({ chat: () => chat, onerror });
    await store.reload();
    return store;
  }

  function turnIn(store: TreePanelStore, id: string): TurnNode {
    const found = store.byId.get(id)?.node;
    if (!found) throw new Error(`no turn ${id}`);
    return found;
  }

  beforeEach(() => {
    vi.clearAllMocks();
    vi.mocked(ipc.sessionTree).mockImplementation(async () => TREE);
    vi.mocked(ipc.visitNode).mockImplementation(async (id) => landedAt(TREE, id));
    vi.mocked(ipc.sessionTreeSince).mockImplementation(async () => ({
      session_id: null,
      leaf_id: null,
      from: 0,
      nodes: [],
    }));
    chat = new ChatStore((flush) => flush());
    onerror = vi.fn<(error: ipc.ArborError) => void>();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the whole tree, then what was stored since, and all of it after another writer', async () => {
    const store = await loaded();
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
    expect(store.tree).toBe(TREE);
    expect(store.layout.nodes.map((p) => p.node.id).sort()).toEqual(['a1', 'a1b', 'u1', 'u2']);
    expect(store.current?.node.id).toBe('a1b');
    expect(store.focusTurn?.id).toBe('a1b');

    const added: TreeNodeView = { ...TREE.nodes[0], id: 'u3', parent_id: 'a1b' };
    vi.mocked(ipc.sessionTreeSince).mockImplementation(async (since) => ({
      session_id: TREE.session_id,
      leaf_id: 'u3',
      from: since,
      nodes: [added],
    }));
    const layout = store.layout;
    await store.reload();
    expect(ipc.sessionTreeSince).toHaveBeenCalledWith(TREE.nodes.length);
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
    expect(store.tree?.nodes.map((n) => n.id)).toEqual(['u1', 'a1', 't1', 'a1b', 'u2', 'u3']);
    expect(store.state.knownLeaf).toBe('u3');
    // The new turn was placed under the old layout, not laid out again.
    expect(store.byId.get('u1')).toBe(layout.nodes.find((p) => p.node.id === 'u1'));
    expect(store.current?.node.id).toBe('u3');

    chat.externalVersion++;
    await store.reload();
    expect(ipc.sessionTree).toHaveBeenCalledTimes(2);
    expect(store.tree).toBe(TREE);
    // Read since then: the delta again.
    await store.reload();
    expect(ipc.sessionTree).toHaveBeenCalledTimes(2);
  });

  it('reads the tree again a moment after the chat changed, once', async () => {
    vi.useFakeTimers();
    const store = new TreePanelStore({ chat: () => chat, onerror });
    const key = store.reloadKey;
    chat.show(landedAt(TREE, 'a1').view);
    expect(store.reloadKey).not.toBe(key);
    const stop = store.watch();
    vi.advanceTimersByTime(RELOAD_DELAY - 1);
    stop();
    vi.advanceTimersByTime(RELOAD_DELAY);
    expect(ipc.sessionTree).not.toHaveBeenCalled();
    store.watch();
    vi.advanceTimersByTime(RELOAD_DELAY);
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
    vi.useRealTimers();
    await vi.waitFor(() => expect(store.tree).toBe(TREE));
    // A failed read goes to the error banner.
    vi.mocked(ipc.sessionTreeSince).mockRejectedValueOnce(new ipc.ArborError('io', 'gone'));
    vi.useFakeTimers();
    store.watch();
    vi.advanceTimersByTime(RELOAD_DELAY);
    vi.useRealTimers();
    await vi.waitFor(() =>
      expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ code: 'io' })),
    );
  });

  it('goes to a turn: the chat shows it, a user message is the draft, the branch left is offered', async () => {
    const store = await loaded();
    await store.visit(turnIn(store, 'a1'));
    expect(ipc.visitNode).toHaveBeenCalledWith('a1');
    expect(store.selected).toBe('a1');
    expect(chat.items.map((item) => item.nodeId)).toEqual(['u1', 'a1']);
    expect(store.leftLeaf).toBe('a1b');
    expect(store.focusTurn?.id).toBe('a1');
    expect(store.menuTurn?.id).toBe('a1');

    await store.visit(turnIn(store, 'u2'));
    expect(chat.draft).toBe('text of u2');
    // A new visit replaces the offer.
    expect(store.leftLeaf).toBeNull();

    vi.mocked(ipc.visitNode).mockRejectedValueOnce(new ipc.ArborError('not_found', 'no node'));
    await store.visit(turnIn(store, 'a1b'));
    expect(store.selected).toBe('a1b');
    expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ code: 'not_found' }));
  });

  it('opens a collapsed run instead of going there', async () => {
    const store = await loaded();
    await store.visit({ ...turnIn(store, 'u2'), id: 'run:u2', kind: 'run' });
    expect(ipc.visitNode).not.toHaveBeenCalled();
    expect([...store.expanded]).toEqual(['run:u2']);
    expect(store.selected).toBeNull();
  });

  it('compares the picked turn with the selected one', async () => {
    const store = await loaded();
    await store.compare();
    // Nothing selected: nothing to pick.
    expect(store.picked).toBeNull();
    store.select('a1');
    await store.compare();
    expect(store.picked).toBe('a1');
    expect(store.pickedTurn?.firstLine).toBe('Reading it.');
    expect(ipc.compareBranches).not.toHaveBeenCalled();

    store.select('a1b');
    vi.mocked(ipc.compareBranches).mockRejectedValueOnce(new ipc.ArborError('io', 'no'));
    await store.compare();
    expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ code: 'io' }));
    expect(store.picked).toBe('a1');
    await store.compare();
    expect(ipc.compareBranches).toHaveBeenLastCalledWith('t1', 'a1b');
    expect(store.comparison?.left.node_id).toBe('t1');
    expect(store.picked).toBeNull();
    store.closeComparison();
    expect(store.comparison).toBeNull();
  });

  it('summarises the branch left behind once, and keeps the offer when that fails', async () => {
    const store = await loaded();
    await store.visit(turnIn(store, 'a1'));
    vi.mocked(ipc.summarizeLeft).mockRejectedValueOnce(new ipc.ArborError('network', 'down'));
    await store.summarize();
    expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ code: 'network' }));
    expect(store.leftLeaf).toBe('a1b');
    expect(store.summarizing).toBe(false);

    const first = store.summarize();
    expect(store.summarizing).toBe(true);
    await store.summarize();
    await first;
    expect(ipc.summarizeLeft).toHaveBeenCalledTimes(2);
    expect(ipc.summarizeLeft).toHaveBeenLastCalledWith('a1b');
    expect(store.leftLeaf).toBeNull();
    expect(store.summarizing).toBe(false);
    expect(chat.items.at(-1)?.nodeId).toBe('bs1');
  });

  it('restores a turn’s files, goes there, and says what the restore and its undo did', async () => {
    vi.mocked(ipc.canUndoRestore).mockResolvedValueOnce(true);
    const store = await loaded();
    store.checkUndo();
    await vi.waitFor(() => expect(store.undoable).toBe(true));

    const a1 = turnIn(store, 'a1');
    store.openRestore(a1);
    expect(store.restoring).toEqual({ nodeId: 't1', turn: a1 });
    store.restored(a1, await ipc.restoreFiles('t1', false, true));
    expect(store.restoring).toBeNull();
    expect(store.restoreNote).toBe('Restored 2 files (1 deleted)');
    expect(store.selected).toBe('a1');
    expect(store.leftLeaf).toBe('a1b');
    // Landed after the turn's tool result (folded into its card).
    expect(store.state.knownLeaf).toBe('t1');
    expect(chat.items.map((item) => item.nodeId)).toEqual(['u1', 'a1']);
    await vi.waitFor(() => expect(ipc.sessionTree).toHaveBeenCalledTimes(2));

    store.undone(await ipc.undoRestore(false));
    expect(store.restoreNote).toBe('Undone: 2 files changed back (1 deleted)');
    await vi.waitFor(() => expect(ipc.sessionTree).toHaveBeenCalledTimes(3));

    store.undoFailed(new ipc.ArborError('io', 'disk full'));
    expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ message: 'disk full' }));
    expect(store.undoable).toBe(true);
    store.undoFailed(new ipc.ArborError('nothing_to_undo', 'nothing'));
    expect(store.undoable).toBe(false);
    expect(store.restoreNote).toBe('Nothing to undo');
    expect(onerror).toHaveBeenCalledTimes(1);
  });

  it('says nothing when it cannot tell whether there is a restore to undo', async () => {
    vi.mocked(ipc.canUndoRestore).mockRejectedValueOnce(new ipc.ArborError('no_code_state', ''));
    const store = await loaded();
    store.checkUndo();
    await new Promise((done) => setTimeout(done, 0));
    expect(store.undoable).toBe(false);
    expect(onerror).not.toHaveBeenCalled();
  });

  it('forgets cached previews when a label changes the tree', async () => {
    const store = await loaded();
    await store.preview.get('a1');
    await store.preview.get('a1');
    expect(ipc.nodePreview).toHaveBeenCalledTimes(1);
    store.labelled(await ipc.labelNode('a1', 'kept'));
    expect(store.byId.get('a1')?.node.label).toBe('kept');
    await store.preview.get('a1');
    expect(ipc.nodePreview).toHaveBeenCalledTimes(2);
  });

  it('fits a session once, follows the current turn and keeps a selected turn in view', async () => {
    const store = await loaded();
    store.fitFirstShown();
    // No size yet: nothing to fit into.
    expect(store.view).toEqual({ x: 0, y: 0, k: 1 });
    store.width = 400;
    store.height = 300;
    store.fitFirstShown();
    const fitted = { ...store.view };
    expect(fitted).not.toEqual({ x: 0, y: 0, k: 1 });
    store.view = { x: 0, y: 0, k: 1 };
    store.fitFirstShown();
    expect(store.view).toEqual({ x: 0, y: 0, k: 1 });
    store.fit();
    expect(store.view).toEqual(fitted);
    // Fit keeps a small tree at the reading size: wider than the panel, it shows the current
    // path (u1 and a1b), whole.
    store.fit(true);
    const whole = { ...store.view };
    expect(whole.k).toBe(1);
    for (const id of ['u1', 'a1b']) {
      const x = (store.byId.get(id)?.x ?? NaN) * whole.k + whole.x;
      expect(x).toBeGreaterThanOrEqual(NODE_WIDTH / 2);
      expect(x).toBeLessThanOrEqual(400 - NODE_WIDTH / 2);
    }
    store.view = fitted;
    store.zoom(2);
    expect(store.view.k).toBeCloseTo(fitted.k * 2);

    const current = store.current;
    if (!current) throw new Error('no current turn');
    store.view = { x: 10_000, y: 0, k: 1 };
    store.followCurrent();
    expect(store.view).toEqual({ x: 200 - current.x, y: 150 - current.y, k: 1 });
    // Once per current turn.
    store.view = { x: 10_000, y: 0, k: 1 };
    store.followCurrent();
    expect(store.view.x).toBe(10_000);

    store.view = { x: 10_000, y: 0, k: 1 };
    store.selectInView('u2');
    const u2 = store.byId.get('u2');
    expect(store.selected).toBe('u2');
    expect(store.view).toEqual({ x: 200 - (u2?.x ?? 0), y: 150 - (u2?.y ?? 0), k: 1 });
  });

  it('selects a search hit’s turn once it is in the tree, and the keys act on the selection', async () => {
    const store = new TreePanelStore({ chat: () => chat, onerror });
    expect(store.highlight('t1')).toBeNull();
    await store.reload();
    expect(store.highlight(null)).toBeNull();
    expect(store.highlight('t1')).toBe('a1');
    expect(store.highlight('t1')).toBeNull();
    expect(store.highlight('u2')).toBe('u2');

    expect(store.keyCommand('ArrowUp')).toEqual({ kind: 'move', id: 'a1b' });
    store.select('a1');
    expect(store.keyCommand('ArrowRight')).toEqual({ kind: 'move', id: 'a1b' });
    expect(store.keyCommand('Enter')).toEqual({ kind: 'visit', turn: turnIn(store, 'a1') });
    expect(store.keyCommand('Escape')).toEqual({ kind: 'ignore' });
    await store.compare();
    expect(store.keyCommand('Escape')).toEqual({ kind: 'unpick' });
    store.unpick();
    expect(store.picked).toBeNull();
  });
});

/** A node as the stream carries it. */
function stored(id: string, parent: string | null, kind: TreeNodeView['kind']): TreeNodeView {
  return { ...TREE.nodes[0], id, parent_id: parent, kind, first_line: `${kind} ${id}` };
}

const ASK: AgentMessage = { role: 'user', content: [{ type: 'text', text: 'user u3' }] };
const REPLY = reply('assistant a3');
const U3 = stored('u3', 'a1b', 'user');
const A3 = stored('a3', 'u3', 'assistant');
/** The fake tree after the run below: a message more under the leaf, and its answer. */
const GROWN: SessionTreeView = { ...TREE, leaf_id: 'a3', nodes: [...TREE.nodes, U3, A3] };

/** One run on the fake tree's current branch, as the session API streams it: with each stored
 * node's view and siblings (`carried`), or as an older stream without them. */
function plainRun(carried = true): SessionEvent[] {
  const appended = (node: TreeNodeView): SessionEvent => ({
    type: 'node_appended',
    node_id: node.id,
    parent_id: node.parent_id,
    session_id: 's1',
    ...(carried ? { sibling_ids: [node.id], node } : {}),
  });
  return [
    { type: 'agent_start' },
    { type: 'message_start', message: ASK },
    { type: 'message_end', message: ASK },
    appended(U3),
    { type: 'message_start', message: REPLY },
    { type: 'message_end', message: REPLY },
    appended(A3),
    { type: 'agent_end', messages: [], status: 'completed' },
  ];
}

describe('after a run', () => {
  let chat: ChatStore;
  let store: TreePanelStore;
  let stop: () => void;
  const after = { ...STATE, cost: 0.5, context_tokens: 2400, message_count: 4 };

  beforeEach(async () => {
    vi.clearAllMocks();
    vi.mocked(ipc.sessionTree).mockImplementation(async () => TREE);
    vi.mocked(ipc.sessionState).mockResolvedValue(after);
    // What reading again answers: the stored branch and tree with the run's nodes.
    vi.mocked(ipc.sessionView).mockImplementation(async () => landedAt(GROWN, 'a3').view);
    vi.mocked(ipc.sessionTreeSince).mockImplementation(async (since) => ({
      // The session the window is on (another session's delta does not fit the tree).
      session_id: chat.model?.sessionId ?? null,
      leaf_id: 'a3',
      from: since,
      nodes: GROWN.nodes.slice(since),
    }));
    chat = new ChatStore((flush) => flush());
    chat.show(landedAt(TREE, 'a1b').view);
    store = new TreePanelStore({ chat: () => chat, onerror: vi.fn() });
    await store.reload();
    // As the tree panel wires it (TreeView): every event of the chat's stream.
    stop = chat.listen((event) => store.receive(event));
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
    vi.mocked(ipc.sessionTree).mockClear();
  });

  afterEach(() => stop());

  it('reads neither the branch nor the tree when the stream carried the nodes', async () => {
    const version = chat.listVersion;
    for (const event of plainRun()) chat.receive(event);
    await vi.waitFor(() => expect(ipc.sessionState).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(chat.model?.state).toEqual(after));
    expect(chat.listVersion).toBe(version + 1);
    const model = chat.model;
    expect(model?.running).toBe(false);
    expect(model?.leafId).toBe('a3');
    expect(model?.items.map((item) => [item.nodeId, item.siblings])).toEqual([
      ['u1', ['u1', 'u2']],
      ['a1b', ['a1', 'a1b']],
      ['u3', ['u3']],
      ['a3', ['a3']],
    ]);
    // The tree has the run's nodes, the new turn is current, and reading again is not needed.
    expect(store.tree?.nodes.map((n) => n.id)).toEqual(GROWN.nodes.map((n) => n.id));
    expect(store.current?.node.id).toBe('a3');
    await store.reload();
    expect(ipc.sessionView).not.toHaveBeenCalled();
    expect(ipc.sessionTreeSince).not.toHaveBeenCalled();
    expect(ipc.sessionTree).not.toHaveBeenCalled();

    // Another writer: the whole tree again.
    chat.externalVersion++;
    await store.reload();
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
  });

  it('reads the tree again when the chat moved elsewhere (a visit, another session)', async () => {
    for (const event of plainRun()) chat.receive(event);
    chat.show(landedAt(GROWN, 'a1').view);
    await store.reload();
    expect(ipc.sessionTreeSince).toHaveBeenCalledWith(GROWN.nodes.length);
    chat.show({ ...landedAt(TREE, 'a1b').view, session_id: 's2' });
    await store.reload();
    expect(ipc.sessionTreeSince).toHaveBeenCalledTimes(2);
    expect(ipc.sessionTree).toHaveBeenCalledTimes(1);
  });

  it('keeps a node the stream appended while a read was on its way', async () => {
    let answer: (delta: SessionTreeDelta) => void = () => {};
    vi.mocked(ipc.sessionTreeSince).mockImplementationOnce(
      () => new Promise((resolve) => (answer = resolve)),
    );
    // The chat went elsewhere, so the panel reads; meanwhile the stream stores a node.
    chat.show(landedAt(TREE, 'a1').view);
    const reading = store.reload();
    store.receive(appendedEvent(U3));
    expect(store.tree?.nodes.map((n) => n.id)).toContain('u3');
    // The read answers as the store was before that node.
    answer({ session_id: 's1', leaf_id: 'a1', from: TREE.nodes.length, nodes: [] });
    await reading;
    expect(store.tree?.nodes.map((n) => n.id)).toContain('u3');
    expect(ipc.sessionTreeSince).toHaveBeenCalledTimes(2);
  });

  it('reads both as before when the stream did not carry the nodes (an older stream)', async () => {
    for (const event of plainRun(false)) chat.receive(event);
    await vi.waitFor(() => expect(ipc.sessionView).toHaveBeenCalledTimes(1));
    expect(ipc.sessionState).not.toHaveBeenCalled();
    expect(store.tree).toBe(TREE);
    await store.reload();
    expect(ipc.sessionTreeSince).toHaveBeenCalledWith(TREE.nodes.length);
    expect(store.tree?.nodes.map((n) => n.id)).toEqual(GROWN.nodes.map((n) => n.id));
    expect(store.tree?.leaf_id).toBe('a3');
    expect(chat.model?.leafId).toBe('a3');
  });

  it('reads the branch after a store error (the unsaved turn stays on screen)', async () => {
    const [start, ask, asked] = plainRun();
    for (const event of [start, ask, asked]) chat.receive(event);
    chat.receive({ type: 'store_error', message: 'database or disk is full' });
    chat.receive({
      type: 'agent_end',
      messages: [],
      status: 'aborted',
      error: { kind: 'aborted' },
    });
    await vi.waitFor(() => expect(ipc.sessionView).toHaveBeenCalledTimes(1));
    expect(ipc.sessionState).not.toHaveBeenCalled();
  });

  it('does not put late figures over a chat shown since', async () => {
    let answer: (state: typeof STATE) => void = () => {};
    vi.mocked(ipc.sessionState).mockImplementationOnce(
      () => new Promise((resolve) => (answer = resolve)),
    );
    for (const event of plainRun()) chat.receive(event);
    chat.show({ ...landedAt(TREE, 'a1b').view, session_id: 's2' });
    const version = chat.listVersion;
    answer(after);
    await new Promise((done) => setTimeout(done, 0));
    expect(chat.model?.state).toEqual(STATE);
    expect(chat.listVersion).toBe(version);
  });
});
