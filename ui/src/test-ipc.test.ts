// The test double (test-ipc.ts) against the shell's command table: `tsc` ties its answers to the
// table's types; this checks at run time that it answers exactly the table's commands and that
// tests get the real IPC functions over it.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import * as real from './ipc';
import { COMMAND_NAMES } from './ipc/generated/commands';
import { ANSWERS, EMPTY_VIEW, emit, fakeIpc, REPO, STATE, TREE } from './test-ipc';

const ipc = fakeIpc(real);

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(() => {
  real.setTransport(null);
});

describe('the fake answers', () => {
  it('answer exactly the commands of the table', () => {
    expect(Object.keys(ANSWERS).sort()).toEqual([...COMMAND_NAMES].sort());
  });
});

describe('fakeIpc', () => {
  it('makes every IPC function a vi.fn and leaves the rest as it is', () => {
    const functions = Object.entries(real).filter(([, value]) => typeof value === 'function');
    expect(functions.length).toBeGreaterThan(40);
    for (const [name] of functions) {
      const mocked = vi.isMockFunction(ipc[name as keyof typeof ipc]);
      expect([name, mocked]).toEqual([
        name,
        !['ArborError', 'toArborError', 'setTransport'].includes(name),
      ]);
    }
    expect(ipc.ArborError).toBe(real.ArborError);
  });

  it('runs the real functions: their arguments reach the table as the command takes them', async () => {
    const editMessage = vi.spyOn(ANSWERS, 'edit_message');
    const restoreFiles = vi.spyOn(ANSWERS, 'restore_files');
    const switchSession = vi.spyOn(ANSWERS, 'switch_session');
    const abort = vi.spyOn(ANSWERS, 'abort');

    await ipc.editMessage('n1', 'again');
    const restored = await ipc.restoreFiles('u2', false, true);
    await expect(ipc.switchSession('s1')).resolves.toBe(EMPTY_VIEW);
    await ipc.abort();

    expect(editMessage).toHaveBeenCalledWith({ nodeId: 'n1', message: 'again' });
    expect(restoreFiles).toHaveBeenCalledWith({ nodeId: 'u2', overwrite: false, visit: true });
    expect(restored.restore.node_id).toBe('u2');
    expect(restored.visit?.editor_text).toBe('text of u2');
    expect(switchSession).toHaveBeenCalledWith({ sessionId: 's1', nodeId: null });
    expect(abort).toHaveBeenCalledWith({});
  });

  it('answers from the table', async () => {
    await expect(ipc.appInfo()).resolves.toEqual({ name: 'Arbor', version: '0.1.0' });
    await expect(ipc.openProject('/anywhere')).resolves.toEqual({ project: REPO, window: 'this' });
    await expect(ipc.setModel('openai', 'gpt-5')).resolves.toEqual({
      ...STATE,
      provider: 'openai',
      model: 'gpt-5',
    });
    const labelled = await ipc.labelNode('a1', '');
    expect(labelled.nodes.find((n) => n.id === 'a1')?.label).toBeNull();
    await expect(ipc.sessionTree()).resolves.toBe(TREE);
    await expect(ipc.pickFolder()).resolves.toBeNull();
  });

  it('turns a failing answer into an ArborError, as from Rust', async () => {
    const failure = ipc.nodePreview('nope');
    await expect(failure).rejects.toBeInstanceOf(real.ArborError);
    await expect(failure).rejects.toMatchObject({ code: 'not_found', message: 'no node nope' });
  });

  it('still lets a test change an answer', async () => {
    vi.mocked(ipc.canUndoRestore).mockResolvedValueOnce(true);
    await expect(ipc.canUndoRestore()).resolves.toBe(true);
    await expect(ipc.canUndoRestore()).resolves.toBe(false);
  });

  it('plays emitted events into the last startSession', async () => {
    const first: real.SessionEvent[] = [];
    const second: real.SessionEvent[] = [];
    await expect(ipc.startSession(null, (e) => first.push(e))).resolves.toBe(EMPTY_VIEW);
    emit({ type: 'agent_start' });
    await ipc.startSession('s1', (e) => second.push(e));
    emit({ type: 'agent_start' }, { type: 'agent_start' });

    expect(first).toHaveLength(1);
    expect(second).toHaveLength(2);
    expect(ipc.startSession).toHaveBeenCalledWith('s1', expect.any(Function));
  });

  it('clones through the table (its Channel is the fake transport’s)', async () => {
    const progress = vi.fn();
    await expect(ipc.cloneRepository({ url: 'https://x/y.git' }, progress)).resolves.toEqual({
      project: REPO,
      window: 'this',
    });
  });
});
