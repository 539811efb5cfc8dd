import { describe, expect, it } from 'vitest';
import type { ProviderKeyStatus } from '../ipc/wire';
import {
  canTest,
  endpointFromFields,
  keyCheckLabel,
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
      'Kept for this session only',
    );
    expect(keySourceLabel(status({ source: 'env' }))).toBe('From $OPENAI_API_KEY');
    expect(keySourceLabel(status({}))).toBe('Missing — set a key (or $OPENAI_API_KEY)');
    expect(keySourceLabel(status({ source: 'not-needed', variable: null }))).toBe('Not needed');
    expect(canTest(status({ source: 'env' }))).toBe(true);
    expect(canTest(status({ source: 'none' }))).toBe(false);
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
