import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import { plan } from '../../state/plan.svelte';
import { EMPTY_VIEW, REPO, STATE } from '../../test-ipc';
import ProjectView from './ProjectView.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

function setup() {
  const props = {
    project: REPO,
    appLabel: 'Arbor 0.1.0',
    onclose: vi.fn(),
    onerror: vi.fn(),
    onopenpath: vi.fn(),
  };
  render(ProjectView, props);
  return { props, user: userEvent.setup() };
}

beforeEach(() => {
  vi.clearAllMocks();
  plan.sync(false);
});

describe('the project window’s files panel', () => {
  it('opens from the header’s toggle and closes with Esc, the focus back on the toggle', async () => {
    const { user } = setup();
    const toggle = await screen.findByTestId('files-toggle');
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    expect(screen.queryByTestId('files-panel')).not.toBeInTheDocument();
    await user.click(toggle);
    const panel = await screen.findByTestId('files-panel');
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(panel).toHaveFocus();
    expect(ipc.listFolder).toHaveBeenCalledWith('');
    expect(ipc.sessionTree).toHaveBeenCalled();
    expect(await screen.findAllByTestId('file-node')).toHaveLength(3);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('files-panel')).not.toBeInTheDocument());
    expect(toggle).toHaveFocus();
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    // The chat's Esc (stop a run) was not asked for.
    expect(ipc.abort).not.toHaveBeenCalled();
  });
});

describe('plan mode in the project window', () => {
  it('takes the session’s flag from each state read', async () => {
    vi.mocked(ipc.startSession).mockResolvedValueOnce({
      ...EMPTY_VIEW,
      state: { ...STATE, plan_mode: true },
    });
    setup();
    const toggle = await screen.findByTestId('plan-toggle');
    await waitFor(() => expect(toggle).toHaveAttribute('aria-pressed', 'true'));
    expect(plan.on).toBe(true);
  });
});
