// A chosen MCP prompt on its own: asked at once without arguments, its form otherwise, refused
// while a required argument is blank, an answer overtaken by a cancel or another prompt dropped.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import { MCP_PROMPTS } from '../../test-ipc';
import { McpPromptRunner } from './mcp-composer.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

const [SUMMARY, REVIEW] = MCP_PROMPTS;

/** An `mcp_get_prompt` answer the test hands out when it likes. */
function pendingPrompt() {
  let answer: (text: string) => void = () => undefined;
  vi.mocked(ipc.mcpGetPrompt).mockImplementationOnce(
    () => new Promise((resolve) => (answer = resolve)),
  );
  return (text: string) => answer(text);
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe('a chosen MCP prompt', () => {
  it('without arguments is asked for at once, its text handed over', async () => {
    const fill = vi.fn();
    const runner = new McpPromptRunner(fill);
    runner.choose(SUMMARY, 'ignored');
    expect(runner.form).toBeNull();
    expect(runner.busy).toBe('/docs:summary');
    await vi.waitFor(() => expect(fill).toHaveBeenCalledOnce());
    expect(fill).toHaveBeenCalledWith('Summarise the project in three sentences.');
    expect(ipc.mcpGetPrompt).toHaveBeenCalledWith('user', 'docs', 'summary', {});
    expect(runner.busy).toBeNull();
    expect(runner.error).toBeNull();
  });

  it('with arguments opens its form, refuses it blank, then sends what is typed', async () => {
    const fill = vi.fn();
    const runner = new McpPromptRunner(fill);
    runner.choose(REVIEW, '');
    expect(runner.form?.values).toEqual(['', '']);
    expect(runner.submit()).toBe(false);
    expect(runner.form?.missing).toEqual(['path']);
    expect(ipc.mcpGetPrompt).not.toHaveBeenCalled();
    runner.form!.values[0] = 'a.rs';
    expect(runner.submit()).toBe(true);
    expect(runner.form?.missing).toEqual([]);
    // Asked once, however often it is sent meanwhile.
    expect(runner.submit()).toBe(false);
    await vi.waitFor(() => expect(fill).toHaveBeenCalledWith('Review a.rs with care.'));
    expect(ipc.mcpGetPrompt).toHaveBeenCalledOnce();
    expect(runner.form).toBeNull();
  });

  it('keeps its form and says why when the server fails', async () => {
    vi.mocked(ipc.mcpGetPrompt).mockRejectedValueOnce({ code: 'mcp_server', message: 'gone' });
    const fill = vi.fn();
    const runner = new McpPromptRunner(fill);
    runner.choose(REVIEW, 'a.rs');
    runner.submit();
    await vi.waitFor(() => expect(runner.error).toBe('/docs:review: gone'));
    expect(runner.form?.values).toEqual(['a.rs', '']);
    expect(runner.busy).toBeNull();
    expect(fill).not.toHaveBeenCalled();
    // Cancelled: nothing left.
    runner.cancel();
    expect(runner.form).toBeNull();
    expect(runner.error).toBeNull();
  });

  it('drops an answer overtaken by a cancel or by another prompt', async () => {
    const fill = vi.fn();
    const runner = new McpPromptRunner(fill);
    const first = pendingPrompt();
    runner.choose(SUMMARY, '');
    runner.cancel();
    expect(runner.busy).toBeNull();
    first('stale');

    const second = pendingPrompt();
    runner.choose(SUMMARY, '');
    runner.choose(REVIEW, '');
    second('stale too');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(fill).not.toHaveBeenCalled();
    expect(runner.form?.prompt.name).toBe('review');
  });
});
