// The settings view's pure parts: how a key status reads, the custom-endpoint form and the
// pass-through list checked and turned into what Rust takes. No key ever passes through here:
// the key field's value goes straight from the input to `setApiKey`.
import type { CustomEndpoint, KeyCheck, KeyStatusList, ProviderKeyStatus } from '../ipc/wire';

/** What a provider row says about its key. */
export function keySourceLabel(status: ProviderKeyStatus): string {
  switch (status.source) {
    case 'keychain':
      return status.run_only ? 'This session only (not in the keychain)' : 'In the OS keychain';
    case 'env':
      return `From $${status.variable ?? 'its variable'}`;
    case 'none':
      return status.variable
        ? `Missing — set a key (or $${status.variable})`
        : 'Missing — set a key';
    case 'not-needed':
      return 'Not needed';
  }
}

/** Whether a request with the provider's key can be tried. */
export function canTest(status: ProviderKeyStatus): boolean {
  return status.source === 'keychain' || status.source === 'env';
}

/** One row of the provider keys section. */
export interface KeyRow {
  status: ProviderKeyStatus;
  /** The row's name: the provider's display name, or what the GitHub token is for. */
  label: string;
  /** Where the key comes from, in words. */
  source: string;
  /** Remove is offered for a key Arbor keeps (keychain or this session). */
  canRemove: boolean;
  /** Test is offered when there is a key to try, for model providers only. */
  canTest: boolean;
}

export const GITHUB_LABEL = 'GitHub (clone token)';

/** Every provider's row, then the GitHub token's. */
export function keyRows(list: KeyStatusList): KeyRow[] {
  const row = (status: ProviderKeyStatus, label: string, model: boolean): KeyRow => ({
    status,
    label,
    source: keySourceLabel(status),
    canRemove: status.source === 'keychain',
    canTest: model && canTest(status),
  });
  return [
    ...list.providers.map((status) => row(status, status.display_name || status.provider, true)),
    row(list.github, GITHUB_LABEL, false),
  ];
}

export function keyCheckLabel(check: KeyCheck): string {
  if (check.ok) return `Works — ${check.model}`;
  const detail = check.message ? ` — ${check.message}` : '';
  return `Does not work: ${check.error_class ?? 'error'}${detail}`;
}

export const APIS = [
  { value: 'openai-completions', label: 'OpenAI-compatible (chat completions)' },
  { value: 'openai-responses', label: 'OpenAI Responses' },
  { value: 'anthropic-messages', label: 'Anthropic-compatible (messages)' },
  { value: 'google-generative-ai', label: 'Gemini-compatible' },
] as const;

export interface EndpointFields {
  name: string;
  api: string;
  baseUrl: string;
  /** Model ids, separated by commas or spaces. */
  models: string;
  /** Context window for every model listed; empty: the catalogue's default. */
  contextWindow: string;
  /** US dollars per million input / output tokens for every model listed; empty: free. */
  inputPrice: string;
  outputPrice: string;
  /** Every model listed reasons (its reasoning is asked for and replayed on the next turn). */
  reasoning: boolean;
  /** Every model listed accepts images. */
  images: boolean;
}

/** A price field: empty is none, else a non-negative number. */
function price(text: string, what: string): { value: number | null } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { value: null };
  const parsed = Number(trimmed);
  if (!Number.isFinite(parsed) || parsed < 0) {
    return {
      error: `The ${what} price must be dollars per million tokens (e.g. 0.5), not “${trimmed}”.`,
    };
  }
  return { value: parsed };
}

/** The endpoint for Rust, or what is wrong (Rust checks again, with the catalogue's loader). */
export function endpointFromFields(
  fields: EndpointFields,
): { endpoint: CustomEndpoint } | { error: string } {
  const name = fields.name.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    return { error: 'Name the endpoint with letters, digits, - and _ (e.g. my-vllm).' };
  }
  if (!APIS.some((api) => api.value === fields.api)) {
    return { error: 'Choose the API the server speaks.' };
  }
  const baseUrl = fields.baseUrl.trim();
  if (!/^https?:\/\/[^/\s]+/.test(baseUrl)) {
    return {
      error: `The base URL must start with http:// or https:// and name a host (e.g. http://localhost:11434/v1), not “${baseUrl}”.`,
    };
  }
  const ids = fields.models
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length === 0) return { error: 'List at least one model id.' };
  const windowText = fields.contextWindow.trim();
  let contextWindow: number | null = null;
  if (windowText) {
    const parsed = Number(windowText);
    if (!Number.isInteger(parsed) || parsed < 1024) {
      return {
        error: `The context window must be a whole number of tokens (1024 or more), not “${windowText}”.`,
      };
    }
    contextWindow = parsed;
  }
  const input = price(fields.inputPrice, 'input');
  if ('error' in input) return input;
  const output = price(fields.outputPrice, 'output');
  if ('error' in output) return output;
  return {
    endpoint: {
      name,
      api: fields.api,
      baseUrl,
      models: [...new Set(ids)].map((id) => ({
        id,
        contextWindow,
        reasoning: fields.reasoning,
        images: fields.images,
        inputPrice: input.value,
        outputPrice: output.value,
      })),
    },
  };
}

/** `GH_TOKEN, MY_VAR` → the names, or what is not a variable name. */
export function parsePassThrough(text: string): { names: string[] } | { error: string } {
  const names = text
    .split(/[\s,]+/)
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  if (bad !== undefined) {
    return { error: `“${bad}” is not an environment variable name (letters, digits and _).` };
  }
  return { names: [...new Set(names)] };
}
