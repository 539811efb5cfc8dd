import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { SessionView } from '../../ipc';
import { plan } from '../../state/plan.svelte';
import { EMPTY_VIEW, STATE } from '../../test-ipc';
import { filesPanelContext } from '../files/context';
import ChatHeader from './ChatHeader.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

function setup(extra: Record<string, unknown> = {}, context?: Map<unknown, unknown>) {
  const props = {
    title: 'Fix the parser',
    state: STATE,
    groups: [],
    running: false,
    onpickmodel: vi.fn(),
    onthinking: vi.fn(),
    ...extra,
  };
  const result = render(ChatHeader, { props, context });
  return { props, user: userEvent.setup(), ...result };
}

beforeEach(() => {
  vi.clearAllMocks();
  vi.mocked(ipc.setPlanMode).mockReset();
  vi.mocked(ipc.compactNow).mockReset();
  plan.sync(false);
});

describe('plan mode in the header', () => {
  it('toggles plan mode, pressed while it is on', async () => {
    const { user } = setup();
    const toggle = screen.getByTestId('plan-toggle');
    expect(toggle).toHaveAccessibleName('Plan');
    expect(toggle).toHaveAttribute('title', expect.stringContaining('(Shift+Tab)'));
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await user.click(toggle);
    expect(ipc.setPlanMode).toHaveBeenCalledWith(true);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-pressed', 'true'));
    await user.click(toggle);
    expect(ipc.setPlanMode).toHaveBeenLastCalledWith(false);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-pressed', 'false'));
    // The session's own flag, read again, is the truth.
    plan.sync(true);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-pressed', 'true'));
  });

  it('hands a failure to onerror, or says it itself without one', async () => {
    vi.mocked(ipc.setPlanMode).mockRejectedValue({ code: 'busy', message: 'no session' });
    const onerror = vi.fn();
    const first = setup({ onerror });
    await first.user.click(screen.getByTestId('plan-toggle'));
    await waitFor(() =>
      expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ code: 'busy' })),
    );
    expect(screen.queryByTestId('header-error')).not.toBeInTheDocument();
    first.unmount();

    const { user } = setup();
    await user.click(screen.getByTestId('plan-toggle'));
    const error = await screen.findByTestId('header-error');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveAttribute('data-code', 'busy');
    expect(error).toHaveTextContent('no session');
    await user.click(screen.getByRole('button', { name: 'Dismiss the error' }));
    expect(screen.queryByTestId('header-error')).not.toBeInTheDocument();
  });
});

describe('compact now', () => {
  it('compacts, busy meanwhile, then hands the chat as it now is to the parent', async () => {
    let finish: (view: SessionView) => void = () => undefined;
    vi.mocked(ipc.compactNow).mockImplementationOnce(
      () => new Promise<SessionView>((resolve) => (finish = resolve)),
    );
    const oncompacted = vi.fn();
    const { user } = setup({ oncompacted });
    const button = screen.getByTestId('compact-now');
    expect(button).toHaveAccessibleName('Compact the conversation now');
    expect(button).toHaveTextContent('Compact now');
    await user.click(button);
    expect(ipc.compactNow).toHaveBeenCalledWith(null);
    expect(button).toHaveAttribute('aria-busy', 'true');
    expect(button).toBeDisabled();
    expect(button).toHaveTextContent('Compacting…');
    const view = { ...EMPTY_VIEW, session_id: 's1' };
    finish(view);
    await waitFor(() => expect(oncompacted).toHaveBeenCalledWith(view));
    expect(button).toHaveAttribute('aria-busy', 'false');
    expect(button).toBeEnabled();
  });

  it('waits while a run streams, and reports a failure', async () => {
    vi.mocked(ipc.compactNow).mockRejectedValueOnce({ code: 'busy', message: 'nothing to do' });
    const onerror = vi.fn();
    const oncompacted = vi.fn();
    const { user, rerender } = setup({ running: true, onerror, oncompacted });
    expect(screen.getByTestId('compact-now')).toBeDisabled();
    // A `/compact` of the composer runs: busy too.
    await rerender({ running: false, compacting: true });
    expect(screen.getByTestId('compact-now')).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByTestId('compact-now')).toBeDisabled();
    await rerender({ compacting: false });
    await user.click(screen.getByTestId('compact-now'));
    await waitFor(() =>
      expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ message: 'nothing to do' })),
    );
    expect(oncompacted).not.toHaveBeenCalled();
  });
});

describe('the files toggle', () => {
  it('is there only in a project window, pressed while the panel is open', async () => {
    const first = setup();
    expect(screen.queryByTestId('files-toggle')).not.toBeInTheDocument();
    first.unmount();

    const toggle = vi.fn();
    const { user } = setup({}, filesPanelContext({ open: true, toggle }));
    const button = screen.getByTestId('files-toggle');
    expect(button).toHaveAccessibleName('Files');
    expect(button).toHaveAttribute('aria-pressed', 'true');
    await user.click(button);
    expect(toggle).toHaveBeenCalled();
  });
});
