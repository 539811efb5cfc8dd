// The composer's menus on their own: the `@` finder searching once typing settles and showing
// only the latest answer, Esc closing a menu, the `/` menu winning and its active option, and
// what MCP servers offer both, asked for when a menu opens.
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { FileMatch } from '../../ipc/wire';
import { MCP_PROMPTS, MCP_RESOURCES } from '../../test-ipc';
import { ComposerMenus, FIND_DELAY_MS } from './composer-menus.svelte';
import { MCP_REFRESH_MS } from './mcp-composer.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

let cleanup: (() => void) | null = null;

function setup() {
  let selection = $state({ text: '', caret: 0, selectionEnd: 0 });
  const warn = vi.fn<(message: string) => void>();
  let menus: ComposerMenus | undefined;
  cleanup = $effect.root(() => {
    menus = new ComposerMenus(() => selection, warn);
  });
  flushSync();
  return {
    menus: menus as ComposerMenus,
    warn,
    /** The text typed, the caret at its end. */
    type(text: string) {
      selection = { text, caret: text.length, selectionEnd: text.length };
      flushSync();
    },
  };
}

/** Lets the typing settle and the finder's answer arrive. */
async function settle() {
  await vi.advanceTimersByTimeAsync(FIND_DELAY_MS);
  flushSync();
}

beforeEach(() => {
  vi.resetAllMocks();
  vi.useFakeTimers();
});

afterEach(() => {
  cleanup?.();
  cleanup = null;
  vi.useRealTimers();
});

describe('the @ finder', () => {
  it('searches once typing settles, then opens with the first match active', async () => {
    const { menus, type } = setup();
    type('see @s');
    expect(ipc.findFiles).not.toHaveBeenCalled();
    expect(menus.open).toBeNull();
    await settle();
    expect(ipc.findFiles).toHaveBeenCalledExactlyOnceWith('s', 50);
    expect(menus.open).toBe('mention');
    expect(menus.mentions.matches.map((m) => m.path)).toEqual(['src/main.rs', 'src/lib.rs']);
    expect(menus.ids).toEqual({ controls: 'composer-mentions', activeId: 'composer-mentions-0' });
    // The files, then the resources (their server, `docs`, holds the `s`): moving wraps.
    expect(menus.mentions.options.map((o) => o.kind)).toEqual([
      'file',
      'file',
      'mcp-resource',
      'mcp-resource',
    ]);
    menus.move(-1);
    expect(menus.mentions.active).toBe(3);
    menus.move(1);
    expect(menus.mentions.active).toBe(0);
  });

  it('shows only the answer to what is typed now', async () => {
    const answers: ((found: FileMatch[]) => void)[] = [];
    vi.mocked(ipc.findFiles).mockImplementation(
      () => new Promise((resolve) => answers.push(resolve)),
    );
    const { menus, type } = setup();
    type('@m');
    await settle();
    type('@ma');
    await settle();
    expect(menus.mentions.searching).toBe(true);
    answers[1]([{ path: 'src/main.rs', indices: [] }]);
    answers[0]([{ path: 'old.rs', indices: [] }]);
    await vi.advanceTimersByTimeAsync(0);
    flushSync();
    expect(menus.mentions.matches.map((m) => m.path)).toEqual(['src/main.rs']);
    expect(menus.mentions.searching).toBe(false);
  });

  it('says when nothing matches, and why a search failed', async () => {
    const { menus, type, warn } = setup();
    type('@zzz');
    await settle();
    expect(menus.open).toBeNull();
    expect(menus.mentions.empty).toBe(true);
    vi.mocked(ipc.findFiles).mockRejectedValueOnce(new ipc.ArborError('busy', 'Still indexing.'));
    type('@zz');
    await settle();
    expect(warn).toHaveBeenCalledWith('Still indexing.');
  });

  it('stays closed on the mention Esc closed it on, until the caret leaves it', async () => {
    const { menus, type } = setup();
    type('@ma');
    await settle();
    menus.dismiss();
    flushSync();
    expect(menus.open).toBeNull();
    type('@mai');
    await settle();
    expect(menus.open).toBeNull();
    type('');
    type('@ma');
    await settle();
    expect(menus.open).toBe('mention');
  });
});

describe('the / menu', () => {
  it('opens as / is typed, before any mention, and makes the command named in full active', () => {
    const { menus, type } = setup();
    type('/');
    expect(menus.open).toBe('command');
    expect(menus.commands.matches.length).toBeGreaterThan(1);
    type('/compact');
    expect(menus.commands.matches.map((c) => c.name)).toEqual(['compact']);
    expect(menus.ids).toEqual({ controls: 'composer-commands', activeId: 'composer-commands-0' });
    expect(menus.commands.line?.command.name).toBe('compact');
  });

  it('closes with Esc or when the message loses the focus, and opens again on focus', () => {
    const { menus, type } = setup();
    type('/');
    menus.dismiss();
    flushSync();
    expect(menus.open).toBeNull();
    menus.focus();
    flushSync();
    expect(menus.open).toBe('command');
    menus.blur();
    flushSync();
    expect(menus.open).toBeNull();
    // Out of the command: the next `/` opens it again.
    type('');
    type('/');
    expect(menus.open).toBe('command');
  });
});

describe('what MCP servers offer', () => {
  it('is asked for when a menu opens, then at most once a minute', async () => {
    const { menus, type } = setup();
    type('plain text');
    await settle();
    expect(ipc.mcpComposerItems).not.toHaveBeenCalled();
    type('@');
    expect(ipc.mcpComposerItems).toHaveBeenCalledTimes(1);
    await settle();
    type('');
    type('/');
    await settle();
    expect(ipc.mcpComposerItems).toHaveBeenCalledTimes(1);
    expect(menus.commands.matches.map((c) => c.name)).toContain('docs:summary');
    type('');
    await vi.advanceTimersByTimeAsync(MCP_REFRESH_MS);
    type('@');
    expect(ipc.mcpComposerItems).toHaveBeenCalledTimes(2);
  });

  it('shows the files at once, and the resources after them once they arrive', async () => {
    let answer: (items: Awaited<ReturnType<typeof ipc.mcpComposerItems>>) => void = () => {};
    vi.mocked(ipc.mcpComposerItems).mockImplementationOnce(
      () => new Promise((resolve) => (answer = resolve)),
    );
    const { menus, type } = setup();
    type('@');
    await settle();
    expect(menus.mcp.loading).toBe(true);
    expect(menus.mentions.options.map((o) => o.kind)).toEqual(['file', 'file', 'file']);
    answer({ resources: MCP_RESOURCES, prompts: MCP_PROMPTS, problems: ['old: did not start'] });
    await vi.advanceTimersByTimeAsync(0);
    flushSync();
    expect(menus.mcp.loading).toBe(false);
    expect(menus.mcp.problems).toEqual(['old: did not start']);
    expect(menus.mentions.options.map((o) => o.kind)).toEqual([
      'file',
      'file',
      'file',
      'mcp-resource',
      'mcp-resource',
    ]);
    // Only what matches: the name first.
    type('@change');
    await settle();
    expect(menus.open).toBe('mention');
    expect(menus.mentions.matches).toEqual([]);
    expect(
      menus.mentions.options.map((o) => (o.kind === 'mcp-resource' ? o.resource.name : null)),
    ).toEqual(['Changelog']);
    expect(menus.mentions.empty).toBe(false);
  });

  it('leaves the menus as they are when the servers cannot be asked', async () => {
    vi.mocked(ipc.mcpComposerItems).mockRejectedValueOnce(
      new ipc.ArborError('no_project', 'No project is open.'),
    );
    const { menus, type, warn } = setup();
    type('/');
    await settle();
    expect(menus.mcp.loading).toBe(false);
    expect(menus.commands.matches.every((c) => c.kind === 'builtin')).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('offers prompts by their name with or without the server', async () => {
    const { menus, type } = setup();
    type('/');
    await settle();
    type('/rev');
    expect(menus.commands.matches.map((c) => `${c.kind}:${c.name}`)).toEqual([
      'mcp-prompt:docs:review',
    ]);
    type('/docs:s');
    expect(menus.commands.matches.map((c) => c.name)).toEqual(['docs:summary']);
    type('/docs:summary');
    expect(menus.commands.line?.command.kind).toBe('mcp-prompt');
  });
});
