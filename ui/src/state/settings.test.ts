import { describe, expect, it } from 'vitest';
import type { ProviderKeyStatus } from '../ipc/wire';
import {
  canTest,
  endpointFromFields,
  keyCheckLabel,
  keyRows,
  keySourceLabel,
  parsePassThrough,
} from './settings';

function status(patch: Partial<ProviderKeyStatus>): ProviderKeyStatus {
  return {
    provider: 'openai',
    display_name: 'OpenAI',
    source: 'none',
    variable: 'OPENAI_API_KEY',
    run_only: false,
    key_optional: false,
    ...patch,
  };
}

describe('key rows', () => {
  it('say where the key comes from, never what it is', () => {
    expect(keySourceLabel(status({ source: 'keychain' }))).toBe('In the OS keychain');
    expect(keySourceLabel(status({ source: 'keychain', run_only: true }))).toBe(
      'This session only (not in the keychain)',
    );
    expect(keySourceLabel(status({ source: 'env' }))).toBe('From $OPENAI_API_KEY');
    expect(keySourceLabel(status({}))).toBe('Missing — set a key (or $OPENAI_API_KEY)');
    expect(keySourceLabel(status({ source: 'not-needed', variable: null }))).toBe('Not needed');
    expect(canTest(status({ source: 'env' }))).toBe(true);
    expect(canTest(status({ source: 'none' }))).toBe(false);
  });

  it('list every provider, then the GitHub token, with what each row offers', () => {
    const rows = keyRows({
      providers: [
        status({ source: 'keychain' }),
        status({
          provider: 'anthropic',
          display_name: 'Anthropic',
          source: 'env',
          variable: 'ANTHROPIC_API_KEY',
        }),
        status({ provider: 'ollama', display_name: '', source: 'not-needed', variable: null }),
      ],
      github: status({ provider: 'github', display_name: 'GitHub', source: 'keychain' }),
      keychain_error: null,
    });
    expect(
      rows.map(({ status, label, source, canRemove, canTest }) => [
        status.provider,
        label,
        source,
        canRemove,
        canTest,
      ]),
    ).toEqual([
      ['openai', 'OpenAI', 'In the OS keychain', true, true],
      ['anthropic', 'Anthropic', 'From $ANTHROPIC_API_KEY', false, true],
      ['ollama', 'ollama', 'Not needed', false, false],
      // The token is removable but not a model provider: nothing to test it against.
      ['github', 'GitHub (clone token)', 'In the OS keychain', true, false],
    ]);
  });

  it('word a key check', () => {
    const base = { provider: 'openai', model: 'openai/gpt-5' };
    expect(keyCheckLabel({ ...base, ok: true, error_class: null, message: null })).toBe(
      'Works — openai/gpt-5',
    );
    expect(
      keyCheckLabel({ ...base, ok: false, error_class: 'authentication', message: 'bad key' }),
    ).toBe('Does not work: authentication — bad key');
  });
});

describe('the custom endpoint form', () => {
  const fields = {
    name: 'my-vllm',
    api: 'openai-completions',
    baseUrl: ' http://gpu:8000/v1 ',
    models: 'qwen3-coder, llama-4 qwen3-coder',
    contextWindow: '131072',
    inputPrice: '0.5',
    outputPrice: '',
    reasoning: false,
    images: false,
  };

  it('builds the endpoint with each model once', () => {
    expect(endpointFromFields(fields)).toEqual({
      endpoint: {
        name: 'my-vllm',
        api: 'openai-completions',
        baseUrl: 'http://gpu:8000/v1',
        models: [
          {
            id: 'qwen3-coder',
            contextWindow: 131072,
            reasoning: false,
            images: false,
            inputPrice: 0.5,
            outputPrice: null,
          },
          {
            id: 'llama-4',
            contextWindow: 131072,
            reasoning: false,
            images: false,
            inputPrice: 0.5,
            outputPrice: null,
          },
        ],
      },
    });
  });

  it('gives every model the reasoning and images flags', () => {
    const built = endpointFromFields({ ...fields, reasoning: true, images: true });
    expect('endpoint' in built && built.endpoint.models).toEqual([
      expect.objectContaining({ id: 'qwen3-coder', reasoning: true, images: true }),
      expect.objectContaining({ id: 'llama-4', reasoning: true, images: true }),
    ]);
    const reasoningOnly = endpointFromFields({ ...fields, reasoning: true });
    expect('endpoint' in reasoningOnly && reasoningOnly.endpoint.models).toEqual([
      expect.objectContaining({ reasoning: true, images: false }),
      expect.objectContaining({ reasoning: true, images: false }),
    ]);
  });

  it('says what is wrong', () => {
    const error = (patch: Partial<typeof fields>) =>
      (endpointFromFields({ ...fields, ...patch }) as { error: string }).error;
    expect(error({ name: 'has space' })).toContain('letters, digits');
    expect(error({ api: 'soap' })).toContain('API');
    expect(error({ baseUrl: 'not a url' })).toContain('“not a url”');
    expect(error({ models: ' , ' })).toContain('at least one model');
    expect(error({ contextWindow: '12k' })).toContain('“12k”');
    expect(error({ outputPrice: '-1' })).toContain('output price');
  });
});

describe('the pass-through list', () => {
  it('takes names separated by commas or spaces', () => {
    expect(parsePassThrough('GH_TOKEN, MY_VAR  GH_TOKEN')).toEqual({
      names: ['GH_TOKEN', 'MY_VAR'],
    });
    expect(parsePassThrough('')).toEqual({ names: [] });
    expect(parsePassThrough('OK, 1BAD')).toEqual({
      error: '“1BAD” is not an environment variable name (letters, digits and _).',
    });
  });
});
