import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App.svelte';
import * as ipc from '../../ipc';
import { settingsDialog } from '../../state/settings.svelte';
import { KEYS, withSource } from '../../test-ipc';

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
    expect(row('github')).toHaveTextContent('GitHub');
    await user.click(screen.getByTestId('settings-close'));
    expect(screen.queryByTestId('settings-view')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('open-settings'));
    expect(await screen.findByTestId('settings-view')).toBeInTheDocument();
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
    await waitFor(() => expect(row('openai')).toHaveTextContent('Kept for this session only'));
  });

  it('tests a key and shows the result, good or bad', async () => {
    vi.mocked(ipc.testApiKey).mockResolvedValueOnce({
      provider: 'anthropic',
      model: 'anthropic/claude',
      ok: false,
      error_class: 'authentication',
      message: 'invalid x-api-key',
    });
    const user = await openWithShortcut();
    expect(within(row('openai')).queryByTestId('api-key-test')).not.toBeInTheDocument();
    await user.click(within(row('anthropic')).getByTestId('api-key-test'));
    expect(await within(row('anthropic')).findByTestId('api-key-test-result')).toHaveTextContent(
      'Does not work: authentication — invalid x-api-key',
    );
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

  it('saves the defaults and refuses a bad variable name', async () => {
    const user = await openWithShortcut();
    await user.selectOptions(screen.getByTestId('default-thinking'), 'high');
    await user.type(screen.getByTestId('tool-env-pass-through'), 'GH_TOKEN, 1BAD');
    await user.click(screen.getByTestId('settings-defaults-save'));
    expect(await screen.findByText(/“1BAD” is not an environment variable name/)).toBeVisible();
    expect(ipc.saveSettings).not.toHaveBeenCalled();
    await user.clear(screen.getByTestId('tool-env-pass-through'));
    await user.type(screen.getByTestId('tool-env-pass-through'), 'GH_TOKEN');
    await user.click(screen.getByTestId('settings-defaults-save'));
    expect(ipc.saveSettings).toHaveBeenCalledWith({
      defaultModel: null,
      defaultThinking: 'high',
      toolEnvPassThrough: ['GH_TOKEN'],
      workspacesDir: null,
      githubHost: null,
    });
  });
});
