// The chat view's built-in `/` commands, each on its own: what it does in the window and what
// it answers to say under the composer.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import { runBuiltin, type CommandContext } from './chat-commands';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

function context(overrides: Partial<CommandContext> = {}): CommandContext {
  return {
    root: undefined,
    running: false,
    model: 'm1',
    compact: vi.fn(async () => null),
    ...overrides,
  };
}

/** A chat's root with the header's model picker and thinking picker. */
function header({ disabled = false, expanded = false } = {}) {
  const root = document.createElement('div');
  const model = document.createElement('button');
  model.dataset.testid = 'model-picker';
  model.disabled = disabled;
  model.setAttribute('aria-expanded', String(expanded));
  const thinking = document.createElement('select');
  thinking.id = 'thinking-picker';
  thinking.disabled = disabled;
  root.append(model, thinking);
  document.body.append(root);
  return { root, model, thinking };
}

beforeEach(() => {
  vi.resetAllMocks();
});

afterEach(() => {
  document.body.replaceChildren();
});

describe('/new and /tree', () => {
  it('go to the window’s handlers, or else send its shortcuts', async () => {
    const onnewsession = vi.fn();
    const ontoggletree = vi.fn();
    expect(await runBuiltin('new', '', context({ onnewsession, ontoggletree }))).toBeNull();
    expect(await runBuiltin('tree', '', context({ onnewsession, ontoggletree }))).toBeNull();
    expect(onnewsession).toHaveBeenCalledOnce();
    expect(ontoggletree).toHaveBeenCalledOnce();

    const keys: string[] = [];
    const listen = (event: KeyboardEvent) => {
      if (event.ctrlKey) keys.push(event.key);
    };
    window.addEventListener('keydown', listen);
    try {
      await runBuiltin('new', '', context());
      await runBuiltin('tree', '', context());
    } finally {
      window.removeEventListener('keydown', listen);
    }
    expect(keys).toEqual(['n', 't']);
  });
});

describe('/compact and /plan', () => {
  it('compacts with the focus given; /plan is the composer’s', async () => {
    const compact = vi.fn(async () => 'Compaction stopped.');
    expect(await runBuiltin('compact', 'the tests', context({ compact }))).toBe(
      'Compaction stopped.',
    );
    expect(compact).toHaveBeenCalledWith('the tests');
    expect(await runBuiltin('plan', '', context({ compact }))).toBeNull();
    expect(compact).toHaveBeenCalledOnce();
  });
});

describe('/export', () => {
  it('exports in the format named, and says where', async () => {
    vi.mocked(ipc.exportSession).mockResolvedValueOnce('/home/me/chat.html');
    expect(await runBuiltin('export', 'html', context())).toBe('Exported to /home/me/chat.html');
    expect(ipc.exportSession).toHaveBeenCalledWith('html');
    // The dialog cancelled: nothing to say.
    vi.mocked(ipc.exportSession).mockResolvedValueOnce(null);
    expect(await runBuiltin('export', '', context())).toBeNull();
  });

  it('names the formats for one it does not know, exporting nothing', async () => {
    expect(await runBuiltin('export', 'pdf', context())).toBe(
      'Export as Markdown (/export), html or jsonl, not “pdf”.',
    );
    expect(ipc.exportSession).not.toHaveBeenCalled();
  });
});

describe('/model and /thinking', () => {
  it('open the header’s pickers', async () => {
    const { root, model, thinking } = header();
    const clicked = vi.fn();
    model.addEventListener('click', clicked);
    expect(await runBuiltin('model', '', context({ root }))).toBeNull();
    expect(clicked).toHaveBeenCalledOnce();
    expect(await runBuiltin('thinking', '', context({ root }))).toBeNull();
    expect(document.activeElement).toBe(thinking);
  });

  it('focus the model picker already open', async () => {
    const { root, model } = header({ expanded: true });
    const clicked = vi.fn();
    model.addEventListener('click', clicked);
    expect(await runBuiltin('model', '', context({ root }))).toBeNull();
    expect(clicked).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(model);
  });

  it('say why a picker cannot change', async () => {
    const { root } = header({ disabled: true });
    expect(await runBuiltin('model', '', context({ root, running: true }))).toBe(
      'The model cannot change while the agent works.',
    );
    expect(await runBuiltin('thinking', '', context({ root, running: true }))).toBe(
      'The thinking level cannot change while the agent works.',
    );
    expect(await runBuiltin('thinking', '', context({ root, model: 'm1' }))).toBe(
      'm1 does not reason: pick a model that does to set how hard it thinks.',
    );
    expect(await runBuiltin('thinking', '', context({ root, model: undefined }))).toBe(
      'This model does not reason: pick a model that does to set how hard it thinks.',
    );
  });

  it('do nothing without a header', async () => {
    expect(await runBuiltin('model', '', context())).toBeNull();
    expect(await runBuiltin('thinking', '', context())).toBeNull();
  });
});
