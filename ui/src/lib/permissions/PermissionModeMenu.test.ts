import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import ProjectView from '../project/ProjectView.svelte';
import { emit, PERMISSIONS, REPO } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
});

async function openWindow() {
  const user = userEvent.setup();
  const onerror = vi.fn();
  render(ProjectView, {
    project: REPO,
    appLabel: 'Arbor 0.1.0',
    onclose: vi.fn(),
    onerror,
    onopenpath: vi.fn(),
  });
  const button = await screen.findByTestId('permission-mode');
  return { user, button, onerror };
}

function option(mode: string): HTMLElement {
  const found = screen
    .getAllByTestId('permission-mode-option')
    .find((element) => element.dataset.mode === mode);
  if (!found) throw new Error(`no option ${mode}`);
  return found;
}

describe('the permission mode in the header', () => {
  it('shows the project’s mode, read when the window opens the project', async () => {
    const { button } = await openWindow();
    expect(ipc.getPermissions).toHaveBeenCalledTimes(1);
    expect(button).toHaveAttribute('data-mode', 'workspace');
    expect(button).toHaveTextContent('Workspace');
    expect(button).toHaveAccessibleName(/Permissions: Workspace/);
    expect(button).toHaveAttribute('aria-haspopup', 'menu');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByTestId('permission-mode-option')).not.toBeInTheDocument();
  });

  it('opens a menu of the three modes, each saying what it does', async () => {
    const { user, button } = await openWindow();
    await user.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('menu', { name: 'Permission mode' })).toBeInTheDocument();
    const options = screen.getAllByTestId('permission-mode-option');
    expect(options.map((element) => element.dataset.mode)).toEqual([
      'read-only',
      'workspace',
      'full',
    ]);
    expect(option('read-only')).toHaveTextContent(
      'Reads and searches; commands ask and run without writes or network.',
    );
    expect(option('workspace')).toHaveTextContent(
      'Edits the project; commands run sandboxed without network.',
    );
    expect(option('full')).toHaveTextContent(
      'No limits but deny rules; commands are not sandboxed.',
    );
    // Full access in the warning colour; the current mode checked and focused.
    expect(option('full')).toHaveClass('warning');
    expect(option('workspace')).not.toHaveClass('warning');
    expect(option('workspace')).toHaveAttribute('aria-checked', 'true');
    expect(option('workspace')).toHaveAttribute('role', 'menuitemradio');
    expect(option('workspace')).toHaveFocus();
  });

  it('is keyboard usable: arrows move, Esc closes and gives the focus back, Enter picks', async () => {
    const { user, button } = await openWindow();
    button.focus();
    await user.keyboard('{ArrowDown}');
    expect(option('workspace')).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(option('full')).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(option('read-only')).toHaveFocus();
    await user.keyboard('{ArrowUp}');
    expect(option('full')).toHaveFocus();
    await user.keyboard('{Home}');
    expect(option('read-only')).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('permission-mode-option')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    expect(ipc.setPermissionMode).not.toHaveBeenCalled();
    // Enter opens it on the current mode; ↑ then Enter picks read-only.
    await user.keyboard('{Enter}');
    expect(option('workspace')).toHaveFocus();
    await user.keyboard('{ArrowUp}{Enter}');
    expect(ipc.setPermissionMode).toHaveBeenCalledWith('read-only');
    await waitFor(() => expect(button).toHaveAttribute('data-mode', 'read-only'));
    expect(button).toHaveFocus();
    expect(screen.queryByTestId('permission-mode-option')).not.toBeInTheDocument();
  });

  it('switches to full access in the warning colour, and follows changes made elsewhere', async () => {
    const { user, button } = await openWindow();
    await user.click(button);
    await user.click(option('full'));
    expect(ipc.setPermissionMode).toHaveBeenCalledWith('full');
    await waitFor(() => expect(button).toHaveAttribute('data-mode', 'full'));
    expect(button).toHaveClass('warning');
    expect(button).toHaveTextContent('Full access');
    // The CLI or another window changed it: the stream says so.
    emit({ type: 'permission_mode_changed', mode: 'read-only' });
    await waitFor(() => expect(button).toHaveAttribute('data-mode', 'read-only'));
    expect(button).not.toHaveClass('warning');
  });

  it('shows why the mode could not be changed', async () => {
    const { user, button, onerror } = await openWindow();
    vi.mocked(ipc.setPermissionMode).mockRejectedValueOnce(
      new ipc.ArborError('store', 'The store is read-only.'),
    );
    await user.click(button);
    await user.click(option('read-only'));
    await waitFor(() => expect(onerror).toHaveBeenCalled());
    expect(onerror.mock.calls[0][0]).toMatchObject({ code: 'store' });
    expect(button).toHaveAttribute('data-mode', 'workspace');
  });

  it('closes when the pointer goes elsewhere', async () => {
    const { user, button } = await openWindow();
    await user.click(button);
    expect(screen.getAllByTestId('permission-mode-option')).toHaveLength(3);
    await user.click(screen.getByTestId('current-project'));
    expect(screen.queryByTestId('permission-mode-option')).not.toBeInTheDocument();
  });
});

describe('the trust banner', () => {
  it('asks to trust a cloned repository, which then runs in workspace mode', async () => {
    vi.mocked(ipc.getPermissions).mockResolvedValueOnce({
      ...PERMISSIONS,
      trusted: false,
      origin: 'https://github.com/someone/repo.git',
      mode: 'read-only',
    });
    const { user, button } = await openWindow();
    const banner = await screen.findByTestId('trust-banner');
    expect(banner).toHaveTextContent(
      'Cloned from https://github.com/someone/repo.git. Arbor runs it read-only until you trust it.',
    );
    expect(button).toHaveAttribute('data-mode', 'read-only');
    // At the top of the project view.
    expect(screen.getByTestId('project-view').firstElementChild).toBe(banner);
    const trust = screen.getByTestId('trust-project');
    expect(trust).toHaveTextContent('Trust this repository');
    await user.click(trust);
    expect(ipc.trustProject).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId('trust-banner')).not.toBeInTheDocument());
    expect(button).toHaveAttribute('data-mode', 'workspace');
  });

  it('does not show for a trusted project', async () => {
    await openWindow();
    expect(screen.queryByTestId('trust-banner')).not.toBeInTheDocument();
  });
});
