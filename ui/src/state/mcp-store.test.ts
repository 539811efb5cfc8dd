// The MCP store (mcp.svelte.ts) over the fake ipc (test-ipc.ts); its pure rules are tested in
// mcp.test.ts, the section and the dialog in lib/mcp/.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../ipc';
import { MCP_SERVERS, resetMcpFake } from '../test-ipc';
import { McpStore } from './mcp.svelte';

vi.mock('../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
  resetMcpFake();
});

const [GITHUB, , REPO_SERVER] = MCP_SERVERS;

describe('the MCP store', () => {
  it('shows the servers asked for one after another, a close counted once', async () => {
    const mcp = new McpStore();
    await mcp.load();
    mcp.review(GITHUB);
    mcp.review(REPO_SERVER);
    const first = mcp.shown;
    expect(first).toMatchObject({ kind: 'tools', target: { scope: 'user', name: 'github' } });
    await vi.waitFor(() => expect(mcp.loading).toBe(false));
    // Esc as a key and as the dialog's cancel: the second is about a dialog no longer shown.
    mcp.close(mcp.shown);
    mcp.close(first);
    expect(mcp.shown).toMatchObject({ kind: 'server', target: { scope: 'project', name: 'repo' } });
    await vi.waitFor(() => expect(mcp.shown?.review).toMatchObject({ hash: 'h-repo' }));
    expect(ipc.mcpServerReview).toHaveBeenCalledWith('repo');
  });

  it('does not close while an approval is sent', async () => {
    const mcp = new McpStore();
    mcp.review(REPO_SERVER);
    await vi.waitFor(() => expect(mcp.shown?.review).not.toBeNull());
    const approving = mcp.approve();
    expect(mcp.approval.busy).toBe(true);
    mcp.close();
    expect(mcp.shown?.kind).toBe('server');
    await approving;
    expect(mcp.shown).toMatchObject({ kind: 'tools', target: { name: 'repo' } });
    expect(mcp.servers.find((s) => s.name === 'repo')?.status).toBe('stopped');
  });
});
