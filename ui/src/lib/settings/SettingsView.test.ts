import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import { settingsDialog } from '../../state/settings.svelte';
import { KEYS, REPO, withSource } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
  if (settingsDialog.open) settingsDialog.close();
});

function row(provider: string): HTMLElement {
  const found = screen
    .getAllByTestId('provider-row')
    .find((element) => element.dataset.provider === provider);
  if (!found) throw new Error(`no row for ${provider}`);
  return found;
}

async function openWithShortcut() {
  const user = userEvent.setup();
  render(App);
  await user.keyboard('{Control>},{/Control}');
  await screen.findByTestId('settings-view');
  await waitFor(() => expect(screen.getAllByTestId('provider-row')).toHaveLength(4));
  return user;
}

describe('the settings view', () => {
  it('opens with Ctrl+, and the gear button, and closes with its button', async () => {
    const user = await openWithShortcut();
    expect(row('openai')).toHaveAttribute('data-key-source', 'none');
    expect(row('anthropic')).toHaveAttribute('data-key-source', 'env');
    expect(row('anthropic')).toHaveTextContent('From $ANTHROPIC_API_KEY');
    expect(row('mock')).toHaveAttribute('data-key-source', 'not-needed');
    expect(row('github')).toHaveTextContent('GitHub (clone token)');
    expect(row('github')).toHaveAttribute('data-key-source', 'none');
    for (const provider of ['openai', 'anthropic', 'mock', 'github']) {
      const input = within(row(provider)).getByTestId('api-key-input');
      expect(input).toHaveAttribute('type', 'password');
      expect(input).toHaveAttribute('autocomplete', 'off');
      expect(input).toHaveValue('');
      expect(within(row(provider)).queryByTestId('api-key-remove')).not.toBeInTheDocument();
    }
    expect(screen.queryByTestId('keychain-error')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('settings-close'));
    expect(screen.queryByTestId('settings-view')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('open-settings'));
    expect(await screen.findByTestId('settings-view')).toBeInTheDocument();
  });

  it('takes the focus, closes with Escape and gives the focus back', async () => {
    const user = userEvent.setup();
    render(App);
    const gear = screen.getByTestId('open-settings');
    expect(gear).toHaveAccessibleName('Settings');
    await user.click(gear);
    const view = await screen.findByTestId('settings-view');
    expect(view).toHaveAccessibleName('Settings');
    expect(view).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('settings-view')).not.toBeInTheDocument();
    expect(gear).toHaveFocus();
    // Cmd+, (macOS) opens it too.
    await user.keyboard('{Meta>},{/Meta}');
    expect(await screen.findByTestId('settings-view')).toBeInTheDocument();
  });

  it('shows why the keychain could not be read above the keys', async () => {
    vi.mocked(ipc.keyStatuses).mockResolvedValueOnce({
      ...KEYS,
      keychain_error: { code: 'keychain_locked', message: 'The keychain is locked; unlock it' },
    });
    await openWithShortcut();
    expect(screen.getByTestId('keychain-error')).toHaveTextContent(
      'The keychain is locked; unlock it',
    );
  });

  it('saves a key write-only, then removes it', async () => {
    const user = await openWithShortcut();
    const input = within(row('openai')).getByTestId('api-key-input');
    expect(input).toHaveAttribute('type', 'password');
    await user.type(input, 'sk-typed-key');
    await user.click(within(row('openai')).getByTestId('api-key-save'));
    expect(ipc.setApiKey).toHaveBeenCalledWith('openai', 'sk-typed-key', false);
    await waitFor(() => expect(row('openai')).toHaveAttribute('data-key-source', 'keychain'));
    expect(within(row('openai')).getByTestId('api-key-input')).toHaveValue('');
    expect(document.body.textContent).not.toContain('sk-typed-key');
    await user.click(within(row('openai')).getByTestId('api-key-remove'));
    expect(ipc.removeApiKey).toHaveBeenCalledWith('openai');
    await waitFor(() => expect(row('openai')).toHaveAttribute('data-key-source', 'none'));
  });

  it('offers to keep the key for this session when no keychain is reachable', async () => {
    vi.mocked(ipc.setApiKey).mockRejectedValueOnce({
      code: 'keychain_unavailable',
      message: 'no keychain is reachable (no bus). On Linux, install gnome-keyring',
    });
    vi.mocked(ipc.setApiKey).mockResolvedValueOnce(withSource('openai', 'keychain', true));
    const user = await openWithShortcut();
    await user.type(within(row('openai')).getByTestId('api-key-input'), 'sk-run-only');
    await user.click(within(row('openai')).getByTestId('api-key-save'));
    expect(await within(row('openai')).findByRole('alert')).toHaveTextContent(
      'no keychain is reachable',
    );
    await user.click(within(row('openai')).getByTestId('api-key-run-only'));
    expect(ipc.setApiKey).toHaveBeenLastCalledWith('openai', 'sk-run-only', true);
    await waitFor(() => expect(row('openai')).toHaveTextContent('This session only'));
    expect(within(row('openai')).getByTestId('api-key-input')).toHaveValue('');
    expect(within(row('openai')).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('tests a key and shows the result, good or bad', async () => {
    vi.mocked(ipc.testApiKey).mockResolvedValueOnce({
      provider: 'anthropic',
      model: 'anthropic/claude',
      ok: true,
      error_class: null,
      message: null,
    });
    vi.mocked(ipc.testApiKey).mockResolvedValueOnce({
      provider: 'anthropic',
      model: 'anthropic/claude',
      ok: false,
      error_class: 'authentication',
      message: 'invalid x-api-key',
    });
    const user = await openWithShortcut();
    expect(within(row('openai')).queryByTestId('api-key-test')).not.toBeInTheDocument();
    expect(within(row('mock')).queryByTestId('api-key-test')).not.toBeInTheDocument();
    await user.click(within(row('anthropic')).getByTestId('api-key-test'));
    expect(ipc.testApiKey).toHaveBeenCalledWith('anthropic');
    expect(await within(row('anthropic')).findByTestId('api-key-test-result')).toHaveTextContent(
      'Works — anthropic/claude',
    );
    await user.click(within(row('anthropic')).getByTestId('api-key-test'));
    await waitFor(() =>
      expect(within(row('anthropic')).getByTestId('api-key-test-result')).toHaveTextContent(
        'Does not work: authentication — invalid x-api-key',
      ),
    );
  });

  it('shows why a key was refused, without offering a session-only key', async () => {
    vi.mocked(ipc.setApiKey).mockRejectedValueOnce({
      code: 'key_malformed',
      message: 'the key contains control characters (a line break?); paste only the key',
    });
    const user = await openWithShortcut();
    await user.type(within(row('openai')).getByTestId('api-key-input'), 'sk-bad');
    await user.click(within(row('openai')).getByTestId('api-key-save'));
    expect(await within(row('openai')).findByRole('alert')).toHaveTextContent('paste only the key');
    expect(within(row('openai')).queryByTestId('api-key-run-only')).not.toBeInTheDocument();
    expect(row('openai')).toHaveAttribute('data-key-source', 'none');
  });

  it('checks a custom endpoint before it asks Rust to add it', async () => {
    const added = {
      ...KEYS,
      providers: [
        ...KEYS.providers,
        {
          provider: 'local-llm',
          display_name: 'local-llm',
          source: 'not-needed' as const,
          variable: null,
          run_only: false,
          key_optional: true,
        },
      ],
    };
    vi.mocked(ipc.addCustomEndpoint).mockResolvedValueOnce(added);
    const user = await openWithShortcut();
    await user.click(screen.getByTestId('custom-endpoint-add'));
    await user.type(screen.getByTestId('custom-endpoint-name'), 'local-llm');
    await user.type(screen.getByTestId('custom-endpoint-url'), 'localhost:11434');
    await user.type(screen.getByTestId('custom-endpoint-models'), 'qwen3-coder');
    await user.click(screen.getByTestId('custom-endpoint-save'));
    expect(screen.getByTestId('custom-endpoint-error')).toHaveTextContent('http://');
    expect(ipc.addCustomEndpoint).not.toHaveBeenCalled();
    await user.clear(screen.getByTestId('custom-endpoint-url'));
    await user.type(screen.getByTestId('custom-endpoint-url'), 'http://localhost:11434/v1');
    await user.click(screen.getByTestId('custom-endpoint-save'));
    expect(ipc.addCustomEndpoint).toHaveBeenCalledWith(
      {
        name: 'local-llm',
        api: 'openai-completions',
        baseUrl: 'http://localhost:11434/v1',
        models: [
          {
            id: 'qwen3-coder',
            contextWindow: null,
            reasoning: false,
            images: false,
            inputPrice: null,
            outputPrice: null,
          },
        ],
      },
      null,
    );
    await waitFor(() => expect(row('local-llm')).toHaveAttribute('data-key-source', 'not-needed'));
  });

  it("marks an endpoint's models as reasoning and image-taking when asked", async () => {
    const user = await openWithShortcut();
    await user.click(screen.getByTestId('custom-endpoint-add'));
    const reasoning = screen.getByRole('checkbox', {
      name: 'Reasoning model (thinking, encrypted reasoning replayed)',
    });
    const images = screen.getByRole('checkbox', { name: 'Accepts images' });
    expect(reasoning).toBe(screen.getByTestId('custom-endpoint-reasoning'));
    expect(images).toBe(screen.getByTestId('custom-endpoint-images'));
    expect(reasoning).not.toBeChecked();
    expect(images).not.toBeChecked();
    expect(reasoning).toHaveAccessibleDescription(/Arbor then asks for their reasoning/);
    await user.type(screen.getByTestId('custom-endpoint-name'), 'local-r1');
    await user.type(screen.getByTestId('custom-endpoint-url'), 'http://localhost:8000/v1');
    await user.type(screen.getByTestId('custom-endpoint-models'), 'deepseek-r1, qwen3-vl');
    // The reasoning box by its label, the images box from the keyboard.
    await user.click(screen.getByText('Reasoning model (thinking, encrypted reasoning replayed)'));
    images.focus();
    await user.keyboard(' ');
    expect(reasoning).toBeChecked();
    expect(images).toBeChecked();
    await user.click(screen.getByTestId('custom-endpoint-save'));
    expect(ipc.addCustomEndpoint).toHaveBeenCalledWith(
      expect.objectContaining({
        name: 'local-r1',
        models: [
          expect.objectContaining({ id: 'deepseek-r1', reasoning: true, images: true }),
          expect.objectContaining({ id: 'qwen3-vl', reasoning: true, images: true }),
        ],
      }),
      null,
    );
    // Added: the form closes, and opens again with both boxes clear.
    await waitFor(() =>
      expect(screen.queryByTestId('custom-endpoint-reasoning')).not.toBeInTheDocument(),
    );
    await user.click(screen.getByTestId('custom-endpoint-add'));
    expect(screen.getByTestId('custom-endpoint-reasoning')).not.toBeChecked();
    expect(screen.getByTestId('custom-endpoint-images')).not.toBeChecked();
  });

  it('shows what Rust says is wrong with an endpoint, as written', async () => {
    vi.mocked(ipc.addCustomEndpoint).mockRejectedValueOnce({
      code: 'catalog',
      message: 'models.json: provider "openai" already exists',
    });
    const user = await openWithShortcut();
    await user.click(screen.getByTestId('custom-endpoint-add'));
    expect(screen.getByTestId('custom-endpoint-name')).toHaveFocus();
    await user.type(screen.getByTestId('custom-endpoint-name'), 'openai');
    await user.selectOptions(screen.getByTestId('custom-endpoint-api'), 'anthropic-messages');
    await user.type(screen.getByTestId('custom-endpoint-url'), 'https://proxy.example/v1');
    await user.type(screen.getByTestId('custom-endpoint-models'), 'a, b');
    await user.type(screen.getByTestId('custom-endpoint-context'), '200000');
    await user.type(screen.getByTestId('custom-endpoint-key'), 'sk-proxy');
    await user.click(screen.getByTestId('custom-endpoint-save'));
    expect(ipc.addCustomEndpoint).toHaveBeenCalledWith(
      expect.objectContaining({
        name: 'openai',
        api: 'anthropic-messages',
        baseUrl: 'https://proxy.example/v1',
        models: [
          expect.objectContaining({ id: 'a', contextWindow: 200000 }),
          expect.objectContaining({ id: 'b', contextWindow: 200000 }),
        ],
      }),
      'sk-proxy',
    );
    expect(await screen.findByTestId('custom-endpoint-error')).toHaveTextContent(
      'models.json: provider "openai" already exists',
    );
  });

  it('opens on a keyless provider\'s row from the model picker\'s "Set key"', async () => {
    vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
    const user = userEvent.setup();
    render(App);
    const gear = await screen.findByTestId('open-settings');
    expect(gear).toHaveAccessibleName('Settings');
    await user.click(await screen.findByTestId('model-picker'));
    await user.click(screen.getByTestId('model-set-key'));
    expect(await screen.findByTestId('settings-view')).toBeInTheDocument();
    await waitFor(() => expect(within(row('openai')).getByTestId('api-key-input')).toHaveFocus());
    vi.mocked(ipc.listModels).mockClear();
    await user.click(screen.getByTestId('settings-close'));
    // Keys may have changed: the picker's list is read again, and the focus is back on it.
    await waitFor(() => expect(ipc.listModels).toHaveBeenCalled());
    expect(screen.getByTestId('model-picker')).toHaveFocus();
  });

  it('saves the defaults and refuses a bad variable name', async () => {
    const user = await openWithShortcut();
    await user.selectOptions(screen.getByTestId('default-thinking'), 'high');
    await user.type(screen.getByTestId('tool-env-pass-through'), 'GH_TOKEN, 1BAD');
    await user.click(screen.getByTestId('settings-defaults-save'));
    expect(await screen.findByText(/“1BAD” is not an environment variable name/)).toBeVisible();
    expect(ipc.saveSettings).not.toHaveBeenCalled();
    await user.clear(screen.getByTestId('tool-env-pass-through'));
    await user.type(screen.getByTestId('tool-env-pass-through'), 'GH_TOKEN');
    await user.type(
      screen.getByTestId('settings-snapshot-ignores'),
      '*.sqlite{Enter}{Enter} data/ ',
    );
    await user.type(screen.getByTestId('settings-stream-idle-timeout'), '5m');
    await user.click(screen.getByTestId('settings-defaults-save'));
    expect(await screen.findByText(/whole number of seconds/)).toBeVisible();
    expect(ipc.saveSettings).not.toHaveBeenCalled();
    await user.clear(screen.getByTestId('settings-stream-idle-timeout'));
    await user.type(screen.getByTestId('settings-stream-idle-timeout'), '300');
    await user.type(screen.getByTestId('settings-compact-at'), '99');
    await user.click(screen.getByTestId('settings-defaults-save'));
    expect(await screen.findByText(/from 50 to 95/)).toBeVisible();
    expect(ipc.saveSettings).not.toHaveBeenCalled();
    await user.clear(screen.getByTestId('settings-compact-at'));
    await user.type(screen.getByTestId('settings-compact-at'), '80');
    await user.click(screen.getByTestId('settings-defaults-save'));
    expect(ipc.saveSettings).toHaveBeenCalledWith({
      defaultModel: null,
      defaultThinking: 'high',
      toolEnvPassThrough: ['GH_TOKEN'],
      workspacesDir: null,
      githubHost: null,
      snapshotIgnores: ['*.sqlite', 'data/'],
      streamIdleTimeoutSecs: 300,
      compactAtPercent: 80,
    });
  });
});
