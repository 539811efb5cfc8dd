import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import { settingsDialog } from '../../state/settings.svelte';
import { PERMISSIONS, REPO, withRules } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
  if (settingsDialog.open) settingsDialog.close();
});

/** The app as a project window, its settings open on the Permissions section. */
async function openSettings() {
  vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
  const user = userEvent.setup();
  render(App);
  await screen.findByTestId('permission-mode');
  await user.click(screen.getByTestId('open-settings'));
  const rules = await screen.findByTestId('permission-rules');
  return { user, rules };
}

function rows(): HTMLElement[] {
  return screen.queryAllByTestId('permission-rule-row');
}

function rowOf(rule: string): HTMLElement {
  const found = rows().find((row) => within(row).queryByText(rule));
  if (!found) throw new Error(`no row for ${rule}`);
  return found;
}

describe('the permissions in the settings', () => {
  it('lists every rule with its effect and where it comes from', async () => {
    await openSettings();
    expect(screen.getByRole('heading', { name: 'Permissions' })).toBeInTheDocument();
    expect(rows().map((row) => [row.dataset.effect, row.dataset.source])).toEqual([
      ['deny', 'user'],
      ['ask', 'project'],
      ['allow', 'project'],
      ['allow', 'session'],
    ]);
    expect(rowOf('Read(~/.ssh/**)')).toHaveTextContent('deny');
    expect(rowOf('Read(~/.ssh/**)')).toHaveTextContent('your settings');
    expect(rowOf('Bash(git push *)')).toHaveTextContent('this project');
    // Only saved rules can be removed here; a session's goes with the session.
    expect(within(rowOf('Read(~/.ssh/**)')).getByTestId('permission-rule-remove')).toBeVisible();
    expect(
      within(rowOf('Bash(npm run lint)')).queryByTestId('permission-rule-remove'),
    ).not.toBeInTheDocument();
    expect(screen.getAllByTestId('permission-rule-remove')).toHaveLength(3);
    expect(
      within(rowOf('Bash(git push *)')).getByTestId('permission-rule-remove'),
    ).toHaveAccessibleName('Remove the ask rule Bash(git push *) (this project)');
  });

  it('removes a rule and shows the rules Rust answers', async () => {
    const { user } = await openSettings();
    await user.click(within(rowOf('Bash(git push *)')).getByTestId('permission-rule-remove'));
    expect(ipc.removePermissionRule).toHaveBeenCalledWith('Bash(git push *)', 'ask', 'project');
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(screen.queryByText('Bash(git push *)')).not.toBeInTheDocument();
  });

  it('adds a rule with its effect and scope, after checking it', async () => {
    const { user } = await openSettings();
    const input = screen.getByTestId('permission-rule-input');
    expect(input).toHaveAccessibleName('Rule');
    // Not a rule: said at once, nothing sent.
    await user.type(input, 'Bash(git push');
    await user.click(screen.getByTestId('permission-rule-add'));
    expect(ipc.addPermissionRule).not.toHaveBeenCalled();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent('A rule is a tool’s name');
    await user.clear(input);
    await user.type(input, 'Bash(npm test)');
    await user.selectOptions(screen.getByTestId('permission-rule-effect'), 'allow');
    await user.selectOptions(screen.getByTestId('permission-rule-scope'), 'user');
    await user.click(screen.getByTestId('permission-rule-add'));
    expect(ipc.addPermissionRule).toHaveBeenCalledWith('Bash(npm test)', 'allow', 'user');
    await waitFor(() => expect(rows()).toHaveLength(5));
    const added = rowOf('Bash(npm test)');
    expect(added).toHaveAttribute('data-effect', 'allow');
    expect(added).toHaveAttribute('data-source', 'user');
    expect(input).toHaveValue('');
  });

  it('shows what Rust says is wrong with a rule, with its code', async () => {
    const { user } = await openSettings();
    vi.mocked(ipc.addPermissionRule).mockRejectedValueOnce(
      new ipc.ArborError('invalid_request', 'Unknown tool "Bsh" in Bsh(ls).'),
    );
    await user.type(screen.getByTestId('permission-rule-input'), 'Bsh(ls)');
    await user.click(screen.getByTestId('permission-rule-add'));
    const error = await screen.findByTestId('permission-settings-error');
    expect(error).toHaveAttribute('data-code', 'invalid_request');
    expect(error).toHaveTextContent('Unknown tool "Bsh" in Bsh(ls).');
    // The typed rule stays to be corrected.
    expect(screen.getByTestId('permission-rule-input')).toHaveValue('Bsh(ls)');
    expect(rows()).toHaveLength(4);
  });

  it('edits the secret paths, one per line', async () => {
    const { user } = await openSettings();
    const paths = screen.getByTestId('permission-secret-paths');
    expect(paths).toHaveValue('~/.ssh\n~/.aws\n.env');
    expect(screen.getByTestId('permission-secret-paths-save')).toBeDisabled();
    await user.clear(paths);
    await user.type(paths, '~/.ssh\n\n  ~/.gnupg \n.env');
    await user.click(screen.getByTestId('permission-secret-paths-save'));
    expect(ipc.setSecretPaths).toHaveBeenCalledWith(['~/.ssh', '~/.gnupg', '.env']);
    await waitFor(() => expect(paths).toHaveValue('~/.ssh\n~/.gnupg\n.env'));
    expect(screen.getByText('Saved.')).toBeInTheDocument();
  });

  it('shows the sandbox, and that every command asks without one', async () => {
    const { user } = await openSettings();
    const sandbox = screen.getByTestId('sandbox-status');
    expect(sandbox).toHaveAttribute('data-backend', 'bubblewrap');
    expect(sandbox).toHaveTextContent('bubblewrap 0.9.0 with a seccomp filter');
    expect(sandbox).not.toHaveTextContent('every command asks');
    await user.click(screen.getByTestId('settings-close'));
    vi.mocked(ipc.getPermissions).mockResolvedValueOnce({
      ...withRules([]),
      sandbox: { backend: 'none', summary: 'bubblewrap is not installed' },
    });
    await user.click(screen.getByTestId('open-settings'));
    await waitFor(() =>
      expect(screen.getByTestId('sandbox-status')).toHaveAttribute('data-backend', 'none'),
    );
    expect(screen.getByTestId('sandbox-status')).toHaveTextContent(
      'bubblewrap is not installed Commands cannot be confined here: every command asks.',
    );
    expect(screen.getByTestId('permission-rules')).toHaveTextContent('No rules: the mode decides.');
  });

  it('is not on the start view, which has no project', async () => {
    const user = userEvent.setup();
    render(App);
    await screen.findByTestId('empty-state');
    await user.click(screen.getByTestId('open-settings'));
    await screen.findByTestId('settings-view');
    await waitFor(() => expect(screen.getAllByTestId('provider-row')).toHaveLength(4));
    expect(screen.queryByTestId('permission-rules')).not.toBeInTheDocument();
    expect(screen.queryByTestId('sandbox-status')).not.toBeInTheDocument();
    expect(ipc.getPermissions).not.toHaveBeenCalled();
    expect(PERMISSIONS.rules).toHaveLength(4);
  });
});
