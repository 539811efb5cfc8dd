import { describe, expect, it } from 'vitest';
import type { McpServerReview, McpServerView, McpToolsReview } from '../ipc/wire';
import { MCP_SERVERS, mcpTool } from '../test-ipc';
import {
  approvalLoading,
  configFromFields,
  EMPTY_APPROVAL,
  EMPTY_FIELDS,
  figuresText,
  formatArgs,
  hasToolChanges,
  nameProblem,
  needsDefinitionReview,
  parseArgs,
  parsePairs,
  reduceApproval,
  statusText,
  toolCountText,
  type McpApprovalAction,
  type McpApprovalState,
} from './mcp';

const [GITHUB, LINT, REPO_SERVER] = MCP_SERVERS;

function server(fields: Partial<McpServerView>): McpServerView {
  return { ...GITHUB, ...fields };
}

describe('a server row in words', () => {
  it('says what the server is doing', () => {
    expect(statusText(GITHUB)).toBe('Running');
    expect(statusText(LINT)).toBe('Error');
    expect(statusText(REPO_SERVER)).toBe('Waiting for your approval');
    expect(statusText(server({ status: 'needs_auth' }))).toBe('Needs sign-in');
    expect(statusText(server({ status: 'stopped' }))).toBe('Stopped');
    // Switched off: Rust says stopped, the row says off.
    expect(statusText(server({ status: 'stopped', enabled: false }))).toBe('Off');
    // A project server not approved stays pending, off or not.
    expect(statusText({ ...REPO_SERVER, enabled: false })).toBe('Waiting for your approval');
  });

  it('counts the tools, the pending ones only when there are some', () => {
    expect(toolCountText(GITHUB)).toBe('12 tools approved');
    expect(toolCountText(server({ tools_approved: 1, tools_pending: 2 }))).toBe(
      '1 tool approved · 2 waiting for review',
    );
  });

  it('gives the start time and the calls', () => {
    expect(figuresText(GITHUB)).toBe('started in 420 ms · 3 calls · last took 180 ms');
    expect(figuresText(server({ start_ms: 2345, calls: 1, last_call_ms: null }))).toBe(
      'started in 2.3 s · 1 call',
    );
    expect(figuresText(LINT)).toBe('');
  });

  it('reviews the definition first only for a project server not approved', () => {
    expect(needsDefinitionReview(REPO_SERVER)).toBe(true);
    expect(needsDefinitionReview({ ...REPO_SERVER, status: 'stopped' })).toBe(false);
    expect(needsDefinitionReview(GITHUB)).toBe(false);
  });
});

describe('names', () => {
  it('are letters, digits, - and _, at most 24, without __', () => {
    expect(nameProblem('github')).toBeNull();
    expect(nameProblem('my-server_2')).toBeNull();
    expect(nameProblem('a'.repeat(24))).toBeNull();
    expect(nameProblem('')).toBe('Give the server a name.');
    expect(nameProblem('a'.repeat(25))).toBe("A server's name has at most 24 characters.");
    expect(nameProblem('my server')).toBe("A server's name has only letters, digits, - and _.");
    expect(nameProblem('dé')).toMatch(/only letters/);
    expect(nameProblem('a__b')).toMatch(/cannot contain "__"/);
    expect(nameProblem('', 'secret')).toBe('Give the secret a name.');
    expect(nameProblem('MY_TOKEN', 'secret')).toBeNull();
  });
});

describe('arguments', () => {
  it('split on whitespace', () => {
    expect(parseArgs('  -y   @mcp/server-filesystem\t. ')).toEqual({
      args: ['-y', '@mcp/server-filesystem', '.'],
    });
    expect(parseArgs('')).toEqual({ args: [] });
    expect(parseArgs('   ')).toEqual({ args: [] });
  });

  it('keep what quotes hold, empty ones too', () => {
    expect(parseArgs(`--root "My Documents" 'it''s' ""`)).toEqual({
      args: ['--root', 'My Documents', 'its', ''],
    });
    expect(parseArgs(`--name="a b"c`)).toEqual({ args: ['--name=a bc'] });
    expect(parseArgs(`"say \\"hi\\" \\\\ now" 'no \\" escape'`)).toEqual({
      args: ['say "hi" \\ now', 'no \\" escape'],
    });
  });

  it('leave backslashes outside quotes as typed (Windows paths)', () => {
    expect(parseArgs('C:\\tools\\server.exe --x')).toEqual({
      args: ['C:\\tools\\server.exe', '--x'],
    });
  });

  it('refuse an unclosed quote', () => {
    expect(parseArgs(`--root "My Documents`)).toEqual({
      error: "An argument's double quote is not closed.",
    });
    expect(parseArgs(`'x`)).toEqual({ error: "An argument's single quote is not closed." });
  });

  it('come back as the line they were typed as', () => {
    const args = ['-y', 'My Documents', '', "it's", 'a"b', '.'];
    const line = formatArgs(args);
    expect(line).toBe(`-y 'My Documents' '' 'it'"'"'s' 'a"b' .`);
    expect(parseArgs(line)).toEqual({ args });
  });
});

describe('NAME=value lines', () => {
  it('become a map, values after the first =, blank lines skipped', () => {
    expect(
      parsePairs('API_TOKEN=${keychain:tok}\n\n  DEBUG = 1 \nQUERY=a=b\r\n', 'variable'),
    ).toEqual({ values: { API_TOKEN: '${keychain:tok}', DEBUG: '1', QUERY: 'a=b' } });
    expect(parsePairs('', 'header')).toEqual({ values: {} });
    expect(parsePairs('Authorization=Bearer ${keychain:gh}\nX-Trace=on', 'header')).toEqual({
      values: { Authorization: 'Bearer ${keychain:gh}', 'X-Trace': 'on' },
    });
  });

  it('say which line is wrong', () => {
    expect(parsePairs('A=1\nDEBUG', 'variable')).toEqual({
      error: 'Line 2 of the variables: write NAME=value.',
    });
    expect(parsePairs('1X=2', 'variable')).toEqual({
      error:
        'Line 1 of the variables: “1X” is not a variable name (letters, digits and _, not first a digit).',
    });
    expect(parsePairs('Bad Header=1', 'header')).toEqual({
      error: 'Line 1 of the headers: “Bad Header” is not a header name.',
    });
    expect(parsePairs('=1', 'header')).toMatchObject({ error: expect.stringMatching(/“”/) });
    expect(parsePairs('A=1\nA=2', 'variable')).toEqual({
      error: 'Line 2 of the variables: A is set twice.',
    });
  });
});

describe('the add form', () => {
  it('makes a stdio server', () => {
    expect(
      configFromFields({
        ...EMPTY_FIELDS,
        name: ' files ',
        command: ' npx ',
        args: '-y @modelcontextprotocol/server-filesystem "My Documents"',
        env: 'TOKEN=${keychain:files}',
        // What the other transport's fields hold is not sent.
        url: 'https://example.com',
        headers: 'X=1',
      }),
    ).toEqual({
      config: {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', 'My Documents'],
        env: { TOKEN: '${keychain:files}' },
        url: '',
        headers: {},
        enabled: true,
        oauthClientId: '',
        oauthClientSecret: '',
        oauthGrant: '',
        oauthPrivateKey: '',
        oauthSigningAlgorithm: '',
      },
    });
  });

  it('makes an http server', () => {
    expect(
      configFromFields({
        ...EMPTY_FIELDS,
        name: 'github',
        transport: 'http',
        command: 'ignored',
        url: ' https://api.githubcopilot.com/mcp/ ',
        headers: 'Authorization=Bearer ${keychain:gh}',
      }),
    ).toEqual({
      config: {
        name: 'github',
        transport: 'http',
        command: '',
        args: [],
        env: {},
        url: 'https://api.githubcopilot.com/mcp/',
        headers: { Authorization: 'Bearer ${keychain:gh}' },
        enabled: true,
        oauthClientId: '',
        oauthClientSecret: '',
        oauthGrant: '',
        oauthPrivateKey: '',
        oauthSigningAlgorithm: '',
      },
    });
  });

  it('says what is wrong and where', () => {
    const stdio = { ...EMPTY_FIELDS, name: 'files', command: 'npx' };
    expect(configFromFields({ ...stdio, name: 'a__b' })).toMatchObject({ field: 'name' });
    expect(configFromFields({ ...stdio, command: '  ' })).toEqual({
      error: 'Give the command that starts the server (e.g. npx).',
      field: 'command',
    });
    expect(configFromFields({ ...stdio, args: '"open' })).toMatchObject({ field: 'args' });
    expect(configFromFields({ ...stdio, env: 'NOPE' })).toMatchObject({ field: 'env' });
    const http = { ...EMPTY_FIELDS, name: 'gh', transport: 'http' as const };
    for (const url of ['', 'ftp://x', 'example.com/mcp', 'https://', 'http:// space']) {
      expect(configFromFields({ ...http, url })).toMatchObject({
        field: 'url',
        error: expect.stringMatching(/^The URL must start with http:\/\/ or https:\/\//),
      });
    }
    expect(configFromFields({ ...http, url: 'http://localhost:3000/mcp' })).toHaveProperty(
      'config',
    );
    expect(configFromFields({ ...http, url: 'https://x.dev', headers: 'a:b=1' })).toMatchObject({
      field: 'headers',
    });
    const withUrl = { ...http, url: 'https://x.dev/mcp' };
    expect(configFromFields({ ...withUrl, oauthClientSecret: '${keychain:gh}' })).toMatchObject({
      field: 'oauth',
      error: 'A client secret needs the client id it belongs to.',
    });
    expect(
      configFromFields({ ...withUrl, oauthClientId: 'abc', oauthClientSecret: 'plain-secret' }),
    ).toMatchObject({ field: 'oauth', error: expect.stringMatching(/keychain:NAME/) });
    expect(
      configFromFields({ ...withUrl, oauthClientId: ' abc ', oauthClientSecret: '${keychain:gh}' }),
    ).toMatchObject({ config: { oauthClientId: 'abc', oauthClientSecret: '${keychain:gh}' } });
  });

  it('makes a machine client with its secret or its private key', () => {
    const http = { ...EMPTY_FIELDS, name: 'ci', transport: 'http' as const, url: 'https://x.dev' };
    const machine = { ...http, oauthMachine: true, oauthClientId: ' bot ' };
    // With its secret: no key, no algorithm.
    expect(configFromFields({ ...machine, oauthClientSecret: '${keychain:bot}' })).toMatchObject({
      config: {
        oauthClientId: 'bot',
        oauthClientSecret: '${keychain:bot}',
        oauthGrant: 'client_credentials',
        oauthPrivateKey: '',
        oauthSigningAlgorithm: '',
      },
    });
    // With its private key: ES256 unless another is chosen.
    expect(
      configFromFields({ ...machine, oauthPrivateKey: ' ${keychain:bot-key} ' }),
    ).toMatchObject({
      config: {
        oauthClientSecret: '',
        oauthGrant: 'client_credentials',
        oauthPrivateKey: '${keychain:bot-key}',
        oauthSigningAlgorithm: 'ES256',
      },
    });
    expect(
      configFromFields({
        ...machine,
        oauthPrivateKey: '${keychain:bot-key}',
        oauthSigningAlgorithm: 'RS512',
      }),
    ).toMatchObject({ config: { oauthSigningAlgorithm: 'RS512' } });
    // Not a machine client: nothing of it is sent, whatever its fields still hold.
    for (const fields of [
      { ...http, oauthClientId: 'bot', oauthPrivateKey: '${keychain:k}' },
      { ...machine, transport: 'sse' as const, oauthPrivateKey: '${keychain:k}' },
    ]) {
      expect(configFromFields(fields)).toMatchObject({
        config: { oauthGrant: '', oauthPrivateKey: '', oauthSigningAlgorithm: '' },
      });
    }
  });

  it('says what a machine client lacks', () => {
    const machine = {
      ...EMPTY_FIELDS,
      name: 'ci',
      transport: 'http' as const,
      url: 'https://x.dev',
      oauthMachine: true,
    };
    expect(configFromFields({ ...machine, oauthPrivateKey: '${keychain:k}' })).toEqual({
      error: 'A machine client needs its client id.',
      field: 'oauth',
    });
    expect(configFromFields({ ...machine, oauthClientId: 'bot' })).toEqual({
      error: 'A machine client signs in with its client secret or its private key: give one.',
      field: 'oauthKey',
    });
    expect(
      configFromFields({
        ...machine,
        oauthClientId: 'bot',
        oauthPrivateKey: '-----BEGIN PRIVATE KEY-----',
      }),
    ).toMatchObject({
      field: 'oauthKey',
      error: expect.stringMatching(/^Give the private key as \$\{keychain:NAME\}/),
    });
    expect(
      configFromFields({ ...machine, oauthClientId: 'bot', oauthPrivateKey: '${keychain:a b}' }),
    ).toMatchObject({ field: 'oauthKey' });
    // The secret keeps its own rule.
    expect(
      configFromFields({ ...machine, oauthClientId: 'bot', oauthClientSecret: 'plain' }),
    ).toMatchObject({ field: 'oauth', error: expect.stringMatching(/keychain:NAME/) });
    expect(
      configFromFields({
        ...machine,
        oauthClientId: 'bot',
        oauthPrivateKey: '${keychain:k}',
        oauthSigningAlgorithm: 'HS256',
      }),
    ).toEqual({
      error: 'A private key signs with ES256, ES384, RS256, RS384, RS512, not “HS256”.',
      field: 'oauthAlgorithm',
    });
    // Without a key the algorithm is not sent, so not checked.
    expect(
      configFromFields({
        ...machine,
        oauthClientId: 'bot',
        oauthClientSecret: '${keychain:s}',
        oauthSigningAlgorithm: 'HS256',
      }),
    ).toMatchObject({ config: { oauthSigningAlgorithm: '' } });
  });
});

const USER = { scope: 'user' as const, name: 'github' };
const PROJECT = { scope: 'project' as const, name: 'repo' };

const SERVER_REVIEW: McpServerReview = {
  name: 'repo',
  definition: '{"command":"node"}',
  diff: null,
  hash: 'h-repo',
};

function toolsReview(scope: 'user' | 'project', server: string): McpToolsReview {
  return {
    server,
    scope,
    added: [mcpTool(server, 'search')],
    changed: [],
    removed: [],
    unchanged: [],
    hash: 't1',
  };
}

function run(state: McpApprovalState, ...actions: McpApprovalAction[]): McpApprovalState {
  return actions.reduce(reduceApproval, state);
}

describe('the approval dialog', () => {
  it('goes from a definition to its tools, then closes', () => {
    let state = run(EMPTY_APPROVAL, { type: 'request', kind: 'server', target: PROJECT });
    expect(state.shown).toEqual({ kind: 'server', target: PROJECT, review: null });
    expect(approvalLoading(state)).toBe(true);
    state = run(state, { type: 'server_loaded', review: SERVER_REVIEW });
    expect(state.shown?.review).toBe(SERVER_REVIEW);
    expect(approvalLoading(state)).toBe(false);
    state = run(state, { type: 'approving' });
    expect(state.busy).toBe(true);
    state = run(state, { type: 'server_approved', target: PROJECT });
    expect(state).toEqual({
      shown: { kind: 'tools', target: PROJECT, review: null },
      queue: [],
      busy: false,
      error: null,
    });
    expect(approvalLoading(state)).toBe(true);
    const tools = toolsReview('project', 'repo');
    state = run(state, { type: 'tools_loaded', review: tools });
    expect(state.shown).toEqual({ kind: 'tools', target: PROJECT, review: tools });
    state = run(state, { type: 'approving' }, { type: 'tools_approved', target: PROJECT });
    expect(state).toEqual(EMPTY_APPROVAL);
  });

  it('queues what is asked while another is shown, once each', () => {
    let state = run(
      EMPTY_APPROVAL,
      { type: 'request', kind: 'tools', target: USER },
      { type: 'request', kind: 'server', target: PROJECT },
      { type: 'request', kind: 'server', target: PROJECT },
      { type: 'request', kind: 'tools', target: USER },
    );
    expect(state.shown?.target).toEqual(USER);
    expect(state.queue).toEqual([{ kind: 'server', target: PROJECT }]);
    state = run(state, { type: 'close' });
    expect(state.shown).toEqual({ kind: 'server', target: PROJECT, review: null });
    expect(state.queue).toEqual([]);
    expect(run(state, { type: 'close' })).toEqual(EMPTY_APPROVAL);
  });

  it('drops answers about anything but what is shown', () => {
    const state = run(EMPTY_APPROVAL, { type: 'request', kind: 'tools', target: USER });
    // A late answer for another server, or for the same name in the other scope.
    expect(run(state, { type: 'tools_loaded', review: toolsReview('project', 'github') })).toBe(
      state,
    );
    expect(run(state, { type: 'server_loaded', review: SERVER_REVIEW })).toBe(state);
    expect(
      run(state, { type: 'failed', target: PROJECT, error: { code: 'io', message: 'x' } }),
    ).toBe(state);
    expect(run(state, { type: 'server_approved', target: USER })).toBe(state);
    expect(run(state, { type: 'tools_approved', target: PROJECT })).toBe(state);
    // Nothing to approve before the review is read.
    expect(run(state, { type: 'approving' })).toBe(state);
    expect(run(EMPTY_APPROVAL, { type: 'close' })).toEqual(EMPTY_APPROVAL);
  });

  it('keeps a failure shown until it is read again', () => {
    const error = { code: 'mcp_server', message: 'the server exited' };
    let state = run(
      EMPTY_APPROVAL,
      { type: 'request', kind: 'tools', target: USER },
      { type: 'failed', target: USER, error },
    );
    expect(state.error).toBe(error);
    expect(approvalLoading(state)).toBe(false);
    state = run(state, { type: 'retry' });
    expect(state.error).toBeNull();
    expect(approvalLoading(state)).toBe(true);
    // A failed approval leaves the review to approve again.
    const review = toolsReview('user', 'github');
    state = run(
      state,
      { type: 'tools_loaded', review },
      { type: 'approving' },
      { type: 'failed', target: USER, error },
    );
    expect(state).toMatchObject({ busy: false, error, shown: { review } });
  });

  it('knows when a tools review has something to decide', () => {
    const review = toolsReview('user', 'github');
    expect(hasToolChanges(review)).toBe(true);
    expect(hasToolChanges({ ...review, added: [], unchanged: review.added })).toBe(false);
    expect(hasToolChanges({ ...review, added: [], removed: ['old'] })).toBe(true);
  });
});
