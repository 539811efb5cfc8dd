import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import type { McpServersView } from '../../ipc';
import { McpStore } from '../../state/mcp.svelte';
import { settingsDialog } from '../../state/settings.svelte';
import { MCP_SERVERS, REPO, resetMcpFake } from '../../test-ipc';
import McpSettings from './McpSettings.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
  resetMcpFake();
  if (settingsDialog.open) settingsDialog.close();
});

/** The section on its own, its servers read. */
async function showSection() {
  const user = userEvent.setup();
  const mcp = new McpStore();
  render(McpSettings, { mcp });
  await waitFor(() => expect(rows()).toHaveLength(3));
  return { user, mcp };
}

function rows(): HTMLElement[] {
  return screen.queryAllByTestId('mcp-server-row');
}

function rowOf(name: string): HTMLElement {
  const found = rows().find((row) => row.dataset.name === name);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

describe('the MCP servers in the settings', () => {
  it('lists every server with where it comes from, its status and its tools', async () => {
    await showSection();
    expect(rows().map((row) => [row.dataset.name, row.dataset.scope, row.dataset.status])).toEqual([
      ['github', 'user', 'running'],
      ['lint', 'user', 'error'],
      ['repo', 'project', 'pending'],
    ]);
    const github = within(rowOf('github'));
    expect(github.getByTestId('mcp-server-summary')).toHaveTextContent(
      'http https://api.githubcopilot.com/mcp/',
    );
    expect(github.getByTestId('mcp-server-status')).toHaveTextContent('Running');
    expect(github.getByTestId('mcp-server-tool-counts')).toHaveTextContent('12 tools approved');
    expect(rowOf('github')).toHaveTextContent('started in 420 ms · 3 calls · last took 180 ms');
    expect(github.getByTestId('mcp-server-toggle')).toBeChecked();
    expect(github.getByTestId('mcp-server-toggle')).toHaveAccessibleName('Use github');
    expect(github.getByTestId('mcp-server-tools')).toHaveAccessibleName(
      'Review the tools of github',
    );
    // The error says why.
    const lint = within(rowOf('lint'));
    expect(lint.getByTestId('mcp-server-status')).toHaveTextContent('Error');
    expect(lint.getByTestId('mcp-server-error')).toHaveTextContent(
      'exited with status 1 before answering',
    );
    expect(github.queryByTestId('mcp-server-error')).not.toBeInTheDocument();
    // A project server not approved: its definition comes first. Only the user's are removed
    // here (a project's live in its .mcp.json).
    const repo = within(rowOf('repo'));
    expect(repo.getByTestId('mcp-server-status')).toHaveTextContent('Waiting for your approval');
    expect(repo.getByTestId('mcp-server-tools')).toHaveTextContent('Review the definition');
    expect(repo.queryByTestId('mcp-server-remove')).not.toBeInTheDocument();
    expect(screen.getAllByTestId('mcp-server-remove')).toHaveLength(2);
    expect(screen.queryByTestId('mcp-server-auth')).not.toBeInTheDocument();
    // What .mcp.json had that could not be used.
    expect(screen.getByTestId('mcp-problems')).toHaveTextContent(
      'old: the legacy SSE transport is not supported',
    );
    expect(screen.queryByTestId('mcp-servers-empty')).not.toBeInTheDocument();
  });

  it('says when there is no server', async () => {
    vi.mocked(ipc.mcpServers).mockResolvedValueOnce({ servers: [], problems: [] });
    render(McpSettings, { mcp: new McpStore() });
    expect(await screen.findByTestId('mcp-servers-empty')).toHaveTextContent('No MCP servers yet');
    expect(screen.queryByTestId('mcp-problems')).not.toBeInTheDocument();
  });

  it('shows hidden characters of what a server wrote as markers', async () => {
    vi.mocked(ipc.mcpServers).mockResolvedValueOnce({
      servers: [{ ...MCP_SERVERS[1], error: 'ok\u202Eevil\u001b[2J' }],
      problems: ['x: bad\u200Bname'],
    });
    render(McpSettings, { mcp: new McpStore() });
    const error = await screen.findByTestId('mcp-server-error');
    expect(error.textContent).toBe('ok\\u{202E}evil\\u{1B}[2J');
    expect(screen.getByTestId('mcp-problem').textContent).toBe('x: bad\\u{200B}name');
  });

  it('switches a server off and on', async () => {
    const { user } = await showSection();
    const toggle = within(rowOf('github')).getByTestId('mcp-server-toggle');
    await user.click(toggle);
    expect(ipc.setMcpServerEnabled).toHaveBeenCalledWith('user', 'github', false);
    await waitFor(() => expect(rowOf('github')).toHaveAttribute('data-status', 'stopped'));
    expect(toggle).not.toBeChecked();
    expect(within(rowOf('github')).getByTestId('mcp-server-status')).toHaveTextContent('Off');
    await user.click(toggle);
    expect(ipc.setMcpServerEnabled).toHaveBeenLastCalledWith('user', 'github', true);
    await waitFor(() => expect(toggle).toBeChecked());
  });

  it('keeps the switch as it was when switching fails, and says why', async () => {
    const { user } = await showSection();
    vi.mocked(ipc.setMcpServerEnabled).mockRejectedValueOnce(
      new ipc.ArborError('invalid_settings', 'settings.json is not writable'),
    );
    const toggle = within(rowOf('github')).getByTestId('mcp-server-toggle');
    await user.click(toggle);
    const error = await screen.findByTestId('mcp-settings-error');
    expect(error).toHaveAttribute('data-code', 'invalid_settings');
    expect(error).toHaveTextContent('settings.json is not writable');
    expect(toggle).toBeChecked();
  });

  it('removes one of the user servers', async () => {
    const { user } = await showSection();
    await user.click(within(rowOf('lint')).getByTestId('mcp-server-remove'));
    expect(ipc.removeMcpServer).toHaveBeenCalledWith('lint');
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(rows().map((row) => row.dataset.name)).toEqual(['github', 'repo']);
  });

  it('shows a server log in the row, and hides it again', async () => {
    const { user } = await showSection();
    const button = within(rowOf('github')).getByTestId('mcp-server-log');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    await user.click(button);
    expect(ipc.mcpServerLog).toHaveBeenCalledWith('user', 'github');
    const log = await within(rowOf('github')).findByTestId('mcp-server-log-text');
    expect(log).toHaveAccessibleName('Log of github');
    expect(log).toHaveTextContent('[arbor] starting github');
    expect(log).toHaveTextContent('server listening on stdio');
    expect(button).toHaveAttribute('aria-expanded', 'true');
    vi.mocked(ipc.mcpServerLog).mockResolvedValueOnce([]);
    await user.click(within(rowOf('github')).getByTestId('mcp-server-log-refresh'));
    expect(await screen.findByTestId('mcp-server-log-empty')).toHaveTextContent(
      'Nothing logged yet.',
    );
    await user.click(button);
    expect(screen.queryByTestId('mcp-server-log-empty')).not.toBeInTheDocument();
    expect(button).toHaveAttribute('aria-expanded', 'false');
  });

  it('signs in to a server that needs it, in the system browser', async () => {
    vi.mocked(ipc.mcpServers).mockResolvedValueOnce({
      servers: [{ ...MCP_SERVERS[0], status: 'needs_auth' }],
      problems: [],
    });
    const user = userEvent.setup();
    render(McpSettings, { mcp: new McpStore() });
    const auth = await screen.findByTestId('mcp-server-auth');
    expect(auth).toHaveAccessibleName('Sign in to github');
    expect(screen.getByTestId('mcp-server-status')).toHaveTextContent('Needs sign-in');
    // Rust waits for the browser: the row says so meanwhile.
    let answer: (view: McpServersView) => void = () => {};
    vi.mocked(ipc.mcpSignIn).mockImplementationOnce(
      () => new Promise((resolve) => (answer = resolve)),
    );
    await user.click(auth);
    expect(ipc.mcpSignIn).toHaveBeenCalledWith('user', 'github');
    expect(auth).toBeDisabled();
    expect(screen.getByTestId('mcp-server-auth-notice')).toHaveTextContent(
      'Sign in to github in your browser',
    );
    answer({ servers: [MCP_SERVERS[0]], problems: [] });
    await waitFor(() => expect(rowOf('github')).toHaveAttribute('data-status', 'running'));
    expect(screen.queryByTestId('mcp-server-auth')).not.toBeInTheDocument();
    expect(screen.queryByTestId('mcp-server-auth-notice')).not.toBeInTheDocument();
  });

  it('says why signing in failed, and offers it again', async () => {
    vi.mocked(ipc.mcpServers).mockResolvedValueOnce({
      servers: [{ ...MCP_SERVERS[0], status: 'needs_auth' }],
      problems: [],
    });
    vi.mocked(ipc.mcpSignIn).mockRejectedValueOnce(
      new ipc.ArborError('mcp_server', 'the sign-in was not finished within 5 minutes'),
    );
    const user = userEvent.setup();
    render(McpSettings, { mcp: new McpStore() });
    await user.click(await screen.findByTestId('mcp-server-auth'));
    const error = await screen.findByTestId('mcp-server-auth-error');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveTextContent('not finished within 5 minutes');
    expect(screen.getByTestId('mcp-server-auth')).toBeEnabled();
  });
});

describe('adding a server', () => {
  it('checks the form before sending it', async () => {
    const { user } = await showSection();
    await user.click(screen.getByTestId('mcp-server-add'));
    const name = screen.getByTestId('mcp-server-name');
    expect(name).toHaveFocus();
    await user.type(name, 'files');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(ipc.addMcpServer).not.toHaveBeenCalled();
    expect(screen.getByRole('alert')).toHaveTextContent('Give the command that starts the server');
    expect(screen.getByTestId('mcp-server-command')).toHaveAttribute('aria-invalid', 'true');
    await user.clear(name);
    await user.type(name, 'my__files');
    await user.type(screen.getByTestId('mcp-server-command'), 'npx');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(screen.getByTestId('mcp-server-form-error')).toHaveTextContent('cannot contain "__"');
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(ipc.addMcpServer).not.toHaveBeenCalled();
  });

  it('saves a command with its arguments and variables', async () => {
    const { user } = await showSection();
    await user.click(screen.getByTestId('mcp-server-add'));
    await user.type(screen.getByTestId('mcp-server-name'), 'files');
    await user.type(screen.getByTestId('mcp-server-command'), 'npx');
    await user.type(
      screen.getByTestId('mcp-server-args'),
      '-y @modelcontextprotocol/server-filesystem "My Documents"',
    );
    await user.type(screen.getByTestId('mcp-server-env'), 'DEBUG=1{Enter}TOKEN=secret-ref');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(ipc.addMcpServer).toHaveBeenCalledWith({
      name: 'files',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', 'My Documents'],
      env: { DEBUG: '1', TOKEN: 'secret-ref' },
      url: '',
      headers: {},
      enabled: true,
      oauthClientId: '',
      oauthClientSecret: '',
      oauthGrant: '',
      oauthPrivateKey: '',
      oauthSigningAlgorithm: '',
    });
    await waitFor(() => expect(rows()).toHaveLength(4));
    expect(rowOf('files')).toHaveAttribute('data-scope', 'user');
    expect(rowOf('files')).toHaveTextContent(
      'npx -y @modelcontextprotocol/server-filesystem My Documents',
    );
    // The form closed, the focus back on its button.
    expect(screen.queryByTestId('mcp-server-name')).not.toBeInTheDocument();
    expect(screen.getByTestId('mcp-server-add')).toHaveFocus();
  });

  it('saves a URL with its headers', async () => {
    const { user } = await showSection();
    await user.click(screen.getByTestId('mcp-server-add'));
    await user.type(screen.getByTestId('mcp-server-name'), 'docs');
    await user.selectOptions(screen.getByTestId('mcp-server-transport'), 'http');
    expect(screen.queryByTestId('mcp-server-command')).not.toBeInTheDocument();
    await user.type(screen.getByTestId('mcp-server-url'), 'https://docs.example.com/mcp');
    await user.type(screen.getByTestId('mcp-server-headers'), 'X-Team=arbor');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(ipc.addMcpServer).toHaveBeenCalledWith(
      expect.objectContaining({
        name: 'docs',
        transport: 'http',
        url: 'https://docs.example.com/mcp',
        headers: { 'X-Team': 'arbor' },
        command: '',
        args: [],
      }),
    );
    await waitFor(() => expect(rowOf('docs')).toHaveAttribute('data-status', 'stopped'));
  });

  it('saves a machine client that signs in with its private key', async () => {
    const { user } = await showSection();
    await user.click(screen.getByTestId('mcp-server-add'));
    await user.type(screen.getByTestId('mcp-server-name'), 'ci');
    // Only an http server has an OAuth client.
    expect(screen.queryByTestId('mcp-server-oauth-machine')).not.toBeInTheDocument();
    await user.selectOptions(screen.getByTestId('mcp-server-transport'), 'sse');
    expect(screen.queryByTestId('mcp-server-oauth-machine')).not.toBeInTheDocument();
    await user.selectOptions(screen.getByTestId('mcp-server-transport'), 'http');
    await user.type(screen.getByTestId('mcp-server-url'), 'https://ci.example.com/mcp');
    const machine = screen.getByTestId('mcp-server-oauth-machine');
    expect(machine).toHaveAccessibleName('Machine client (signs in by itself, no browser)');
    expect(machine).not.toBeChecked();
    expect(screen.queryByTestId('mcp-server-oauth-private-key')).not.toBeInTheDocument();
    expect(screen.queryByTestId('mcp-server-oauth-signing-algorithm')).not.toBeInTheDocument();
    await user.click(machine);

    const key = screen.getByTestId('mcp-server-oauth-private-key');
    const algorithm = screen.getByTestId('mcp-server-oauth-signing-algorithm');
    expect(key).toHaveAccessibleName('Private key');
    expect(key).toHaveAccessibleDescription(
      'A machine client signs in with its secret or its private key (a PEM key stored on one line under Secrets below).',
    );
    expect(algorithm).toHaveValue('ES256');
    expect([...algorithm.querySelectorAll('option')].map((o) => o.value)).toEqual([
      'ES256',
      'ES384',
      'RS256',
      'RS384',
      'RS512',
    ]);

    // No client id, then no secret or key: refused here, the field marked.
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(screen.getByTestId('mcp-server-form-error')).toHaveTextContent(
      'A machine client needs its client id.',
    );
    expect(screen.getByTestId('mcp-server-oauth-client-id')).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    await user.type(screen.getByTestId('mcp-server-oauth-client-id'), 'bot');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(screen.getByTestId('mcp-server-form-error')).toHaveTextContent(
      'its client secret or its private key',
    );
    expect(key).toHaveAttribute('aria-invalid', 'true');
    // The key itself: refused, never sent.
    await user.type(key, '-----BEGIN PRIVATE KEY-----');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(screen.getByTestId('mcp-server-form-error')).toHaveTextContent(
      'Give the private key as ${keychain:NAME}',
    );
    expect(ipc.addMcpServer).not.toHaveBeenCalled();

    await user.clear(key);
    await user.type(key, '${{keychain:ci-key}');
    await user.selectOptions(algorithm, 'RS256');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(ipc.addMcpServer).toHaveBeenCalledWith(
      expect.objectContaining({
        name: 'ci',
        transport: 'http',
        url: 'https://ci.example.com/mcp',
        oauthClientId: 'bot',
        oauthClientSecret: '',
        oauthGrant: 'client_credentials',
        oauthPrivateKey: '${keychain:ci-key}',
        oauthSigningAlgorithm: 'RS256',
      }),
    );
  });

  it('sends no machine client once the box is unticked', async () => {
    const { user } = await showSection();
    await user.click(screen.getByTestId('mcp-server-add'));
    await user.type(screen.getByTestId('mcp-server-name'), 'docs');
    await user.selectOptions(screen.getByTestId('mcp-server-transport'), 'http');
    await user.type(screen.getByTestId('mcp-server-url'), 'https://docs.example.com/mcp');
    await user.type(screen.getByTestId('mcp-server-oauth-client-id'), 'app');
    await user.click(screen.getByTestId('mcp-server-oauth-machine'));
    await user.type(screen.getByTestId('mcp-server-oauth-private-key'), '${{keychain:k}');
    await user.click(screen.getByTestId('mcp-server-oauth-machine'));
    expect(screen.queryByTestId('mcp-server-oauth-private-key')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(ipc.addMcpServer).toHaveBeenCalledWith(
      expect.objectContaining({
        oauthClientId: 'app',
        oauthGrant: '',
        oauthPrivateKey: '',
        oauthSigningAlgorithm: '',
      }),
    );
  });

  it('shows what Rust says is wrong, keeping what was typed', async () => {
    const { user } = await showSection();
    vi.mocked(ipc.addMcpServer).mockRejectedValueOnce(
      new ipc.ArborError('invalid_mcp_server', 'invalid MCP server "files": it names no command'),
    );
    await user.click(screen.getByTestId('mcp-server-add'));
    await user.type(screen.getByTestId('mcp-server-name'), 'files');
    await user.type(screen.getByTestId('mcp-server-command'), 'npx');
    await user.click(screen.getByTestId('mcp-server-save'));
    expect(await screen.findByRole('alert')).toHaveTextContent('it names no command');
    expect(screen.getByTestId('mcp-server-name')).toHaveValue('files');
    expect(rows()).toHaveLength(3);
    await user.click(screen.getByTestId('mcp-server-cancel'));
    expect(screen.queryByTestId('mcp-server-name')).not.toBeInTheDocument();
  });
});

describe('a secret for a definition', () => {
  it('is kept in the keychain, its field cleared', async () => {
    const { user } = await showSection();
    const value = screen.getByTestId('mcp-secret-value');
    expect(value).toHaveAttribute('type', 'password');
    await user.type(value, 'ghp_secret');
    await user.click(screen.getByTestId('mcp-secret-save'));
    expect(screen.getByTestId('mcp-secret-error')).toHaveTextContent('Give the secret a name.');
    expect(ipc.setMcpSecret).not.toHaveBeenCalled();
    await user.type(screen.getByTestId('mcp-secret-name'), 'github');
    await user.click(screen.getByTestId('mcp-secret-save'));
    expect(ipc.setMcpSecret).toHaveBeenCalledWith('github', 'ghp_secret');
    await waitFor(() => expect(value).toHaveValue(''));
    expect(screen.getByTestId('mcp-secret-status')).toHaveTextContent('${keychain:github}');
    expect(screen.queryByTestId('mcp-secret-error')).not.toBeInTheDocument();
  });

  it('says why the keychain refused it', async () => {
    const { user } = await showSection();
    vi.mocked(ipc.setMcpSecret).mockRejectedValueOnce(
      new ipc.ArborError('keychain_locked', 'The keychain is locked.'),
    );
    await user.type(screen.getByTestId('mcp-secret-name'), 'github');
    await user.type(screen.getByTestId('mcp-secret-value'), 'x');
    await user.click(screen.getByTestId('mcp-secret-save'));
    const error = await screen.findByTestId('mcp-secret-error');
    expect(error).toHaveAttribute('data-code', 'keychain_locked');
    expect(screen.getByTestId('mcp-secret-value')).toHaveValue('x');
  });
});

describe('the section in the settings view', () => {
  it('is in a project window, after the permissions', async () => {
    vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
    const user = userEvent.setup();
    render(App);
    await screen.findByTestId('permission-mode');
    await user.click(screen.getByTestId('open-settings'));
    const section = await screen.findByTestId('mcp-servers');
    expect(screen.getByRole('heading', { name: 'MCP servers' })).toBeInTheDocument();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(ipc.mcpServers).toHaveBeenCalledTimes(1);
    const permissions = screen.getByTestId('permission-rules');
    expect(
      permissions.compareDocumentPosition(section) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
  });

  it('is not on the start view, which has no project', async () => {
    const user = userEvent.setup();
    render(App);
    await screen.findByTestId('empty-state');
    await user.click(screen.getByTestId('open-settings'));
    await screen.findByTestId('settings-view');
    await waitFor(() => expect(screen.getAllByTestId('provider-row')).toHaveLength(4));
    expect(screen.queryByTestId('mcp-servers')).not.toBeInTheDocument();
    expect(ipc.mcpServers).not.toHaveBeenCalled();
  });
});
