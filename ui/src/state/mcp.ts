// A project's MCP servers as the settings show them, and the approval dialog's state. Pure (no
// Svelte, no IPC), so every rule is unit-tested (mcp.test.ts); mcp.svelte.ts feeds it.
// - what a server row says: its status, scope and figures in words;
// - the add form's fields → an `McpServerConfig`, with what is wrong in words (Rust checks
//   again). Arguments are one line split on whitespace, shell-like: 'single' and "double"
//   quotes keep spaces (inside double quotes `\"` and `\\` escape), nothing else is special —
//   a Windows path's backslashes stay as typed. Variables and headers are `NAME=value` lines;
//   blank lines are skipped. An http server's OAuth client registered beforehand may be a
//   machine client (client credentials: its secret or its private key, each a
//   `${keychain:NAME}` reference, the key's signing algorithm sent with it);
// - the approval dialog: a queue of servers to review, the first shown — its definition (a
//   project server not approved yet) or its tools —, reduced from what the user and Rust did.
import type {
  McpScope,
  McpServerConfig,
  McpServerReview,
  McpServerStatus,
  McpServerView,
  McpToolsReview,
  McpTransport,
} from '../ipc/wire';

/** The private key algorithms a machine client may sign with (Rust's `signing_algorithm`);
 * the first is the default. */
export const SIGNING_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'RS384', 'RS512'] as const;

/** The OAuth grant of a machine client (it signs in by itself, no browser). */
export const CLIENT_CREDENTIALS = 'client_credentials';

/** Longest server name (Rust's `MAX_SERVER_NAME`: `mcp__<server>__<tool>` must fit 64). */
export const MAX_SERVER_NAME = 24;

/** A status in words, for a row. */
export const STATUS_LABEL: Record<McpServerStatus, string> = {
  running: 'Running',
  stopped: 'Stopped',
  error: 'Error',
  pending: 'Waiting for your approval',
  needs_auth: 'Needs sign-in',
};

export const SCOPE_LABEL: Record<McpScope, string> = {
  user: 'user',
  project: 'project',
};

/** Where a scope's servers come from, for a badge's title. */
export const SCOPE_TITLE: Record<McpScope, string> = {
  user: 'Your settings: for every project',
  project: "This project's .mcp.json",
};

/** What the row says the server is doing: "Off" for one switched off (Rust says stopped). */
export function statusText(server: McpServerView): string {
  if (!server.enabled && server.status === 'stopped') return 'Off';
  return STATUS_LABEL[server.status];
}

/** "3 tools approved · 1 waiting for review" (the pending part only when there are some). */
export function toolCountText(server: McpServerView): string {
  const approved = `${server.tools_approved} ${server.tools_approved === 1 ? 'tool' : 'tools'} approved`;
  if (server.tools_pending === 0) return approved;
  return `${approved} · ${server.tools_pending} waiting for review`;
}

/** The row's figures: how long the last start took, calls and the last call's time. */
export function figuresText(server: McpServerView): string {
  const parts: string[] = [];
  if (server.start_ms != null) parts.push(`started in ${duration(server.start_ms)}`);
  if (server.calls > 0) {
    parts.push(`${server.calls} ${server.calls === 1 ? 'call' : 'calls'}`);
    if (server.last_call_ms != null) parts.push(`last took ${duration(server.last_call_ms)}`);
  }
  return parts.join(' · ');
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Whether the row's review button opens the definition (a project server not approved). */
export function needsDefinitionReview(server: McpServerView): boolean {
  return server.scope === 'project' && server.status === 'pending';
}

/** What is wrong with a server's (or a secret's) name, or null: Rust's `check_name`. */
export function nameProblem(name: string, what: 'server' | 'secret' = 'server'): string | null {
  if (name === '') return `Give the ${what} a name.`;
  if (name.length > MAX_SERVER_NAME) {
    return `A ${what}'s name has at most ${MAX_SERVER_NAME} characters.`;
  }
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    return `A ${what}'s name has only letters, digits, - and _.`;
  }
  if (what === 'server' && name.includes('__')) {
    return 'A server\'s name cannot contain "__" (it separates server and tool in mcp__server__tool).';
  }
  return null;
}

/**
 * An argument line split like a shell does, without its expansions: whitespace separates,
 * 'single quotes' keep everything, "double quotes" keep everything but `\"` and `\\`. An
 * unclosed quote is an error.
 */
export function parseArgs(text: string): { args: string[] } | { error: string } {
  const args: string[] = [];
  let current = '';
  let started = false;
  let quote: "'" | '"' | null = null;
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i];
    if (quote === "'") {
      if (char === "'") quote = null;
      else current += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && (chars[i + 1] === '"' || chars[i + 1] === '\\'))
        current += chars[++i];
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (quote !== null) {
    return { error: `An argument's ${quote === "'" ? 'single' : 'double'} quote is not closed.` };
  }
  if (started) args.push(current);
  return { args };
}

/** The argument list as the form's one line (quoted where a shell would need it). */
export function formatArgs(args: string[]): string {
  return args
    .map((arg) => (arg !== '' && !/[\s'"]/.test(arg) ? arg : `'${arg.replaceAll("'", `'"'"'`)}'`))
    .join(' ');
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110's token). */
const HEADER = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `NAME=value` lines → a map (`kind` decides what a name may be). The value is everything
 * after the first `=`, trimmed; blank lines are skipped; a name twice is an error.
 */
export function parsePairs(
  text: string,
  kind: 'variable' | 'header',
): { values: Record<string, string> } | { error: string } {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const at = line.indexOf('=');
    const where = `Line ${i + 1} of the ${kind === 'variable' ? 'variables' : 'headers'}`;
    if (at < 0) return { error: `${where}: write NAME=value.` };
    const name = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (!(kind === 'variable' ? VARIABLE : HEADER).test(name)) {
      return {
        error:
          kind === 'variable'
            ? `${where}: “${name}” is not a variable name (letters, digits and _, not first a digit).`
            : `${where}: “${name}” is not a header name.`,
      };
    }
    if (Object.hasOwn(values, name)) return { error: `${where}: ${name} is set twice.` };
    values[name] = value;
  }
  return { values };
}

/** The add form's fields, as typed. */
export interface ServerFields {
  name: string;
  transport: McpTransport;
  command: string;
  /** One line, see `parseArgs`. */
  args: string;
  /** `NAME=value` lines. */
  env: string;
  url: string;
  /** `Name=value` lines. */
  headers: string;
  /** An OAuth client registered beforehand (http; empty: the client registers itself). */
  oauthClientId: string;
  /** Its secret as `${keychain:NAME}`, never the secret itself. */
  oauthClientSecret: string;
  /** That client is a machine client: it signs in by itself (client credentials). */
  oauthMachine: boolean;
  /** A machine client's private key (PEM on one line) as `${keychain:NAME}`. */
  oauthPrivateKey: string;
  /** The private key's algorithm, one of `SIGNING_ALGORITHMS`. */
  oauthSigningAlgorithm: string;
}

export const EMPTY_FIELDS: ServerFields = {
  name: '',
  transport: 'stdio',
  command: '',
  args: '',
  env: '',
  url: '',
  headers: '',
  oauthClientId: '',
  oauthClientSecret: '',
  oauthMachine: false,
  oauthPrivateKey: '',
  oauthSigningAlgorithm: SIGNING_ALGORITHMS[0],
};

/** Which field a problem is about (the form marks it). */
export type ServerField =
  'name' | 'command' | 'args' | 'env' | 'url' | 'headers' | 'oauth' | 'oauthKey' | 'oauthAlgorithm';

/** Whether `value` is a `${keychain:NAME}` reference (a secret is never written in the settings). */
function isKeychainReference(value: string): boolean {
  return /^\$\{keychain:[A-Za-z0-9_-]+\}$/.test(value);
}

/** The server for Rust (switched on), or what is wrong and where (Rust checks again). */
export function configFromFields(
  fields: ServerFields,
): { config: McpServerConfig } | { error: string; field: ServerField } {
  const name = fields.name.trim();
  const problem = nameProblem(name);
  if (problem) return { error: problem, field: 'name' };
  const base = {
    name,
    transport: fields.transport,
    enabled: true,
    oauthClientId: '',
    oauthClientSecret: '',
    oauthGrant: '',
    oauthPrivateKey: '',
    oauthSigningAlgorithm: '',
  };
  if (fields.transport === 'stdio') {
    const command = fields.command.trim();
    if (command === '') {
      return { error: 'Give the command that starts the server (e.g. npx).', field: 'command' };
    }
    const args = parseArgs(fields.args);
    if ('error' in args) return { error: args.error, field: 'args' };
    const env = parsePairs(fields.env, 'variable');
    if ('error' in env) return { error: env.error, field: 'env' };
    return {
      config: { ...base, command, args: args.args, env: env.values, url: '', headers: {} },
    };
  }
  const url = fields.url.trim();
  if (!/^https?:\/\/[^/\s]+\S*$/i.test(url)) {
    return {
      error: `The URL must start with http:// or https:// and name a host (the server's Streamable HTTP endpoint), not “${url}”.`,
      field: 'url',
    };
  }
  const headers = parsePairs(fields.headers, 'header');
  if ('error' in headers) return { error: headers.error, field: 'headers' };
  // The legacy SSE transport signs in with headers only.
  const oauthClientId = fields.transport === 'http' ? fields.oauthClientId.trim() : '';
  const oauthClientSecret = fields.transport === 'http' ? fields.oauthClientSecret.trim() : '';
  if (oauthClientSecret !== '' && oauthClientId === '') {
    return { error: 'A client secret needs the client id it belongs to.', field: 'oauth' };
  }
  if (oauthClientSecret !== '' && !isKeychainReference(oauthClientSecret)) {
    return {
      error:
        'Give the client secret as ${keychain:NAME} and store the secret under Secrets below: it is never saved in the settings.',
      field: 'oauth',
    };
  }
  const machine = machineClient(fields, oauthClientId, oauthClientSecret);
  if ('error' in machine) return machine;
  return {
    config: {
      ...base,
      command: '',
      args: [],
      env: {},
      url,
      headers: headers.values,
      oauthClientId,
      oauthClientSecret,
      ...machine.oauth,
    },
  };
}

/** An http server's machine client (its grant, private key and the key's algorithm; all empty
 * for none), or what is wrong with it: it needs its client id, and its secret or its private
 * key; the key is a `${keychain:NAME}` reference like the secret; the algorithm goes only with
 * a key. */
function machineClient(
  fields: ServerFields,
  oauthClientId: string,
  oauthClientSecret: string,
):
  | { oauth: Pick<McpServerConfig, 'oauthGrant' | 'oauthPrivateKey' | 'oauthSigningAlgorithm'> }
  | { error: string; field: ServerField } {
  if (fields.transport !== 'http' || !fields.oauthMachine) {
    return { oauth: { oauthGrant: '', oauthPrivateKey: '', oauthSigningAlgorithm: '' } };
  }
  if (oauthClientId === '') {
    return { error: 'A machine client needs its client id.', field: 'oauth' };
  }
  const oauthPrivateKey = fields.oauthPrivateKey.trim();
  if (oauthClientSecret === '' && oauthPrivateKey === '') {
    return {
      error: 'A machine client signs in with its client secret or its private key: give one.',
      field: 'oauthKey',
    };
  }
  if (oauthPrivateKey !== '' && !isKeychainReference(oauthPrivateKey)) {
    return {
      error:
        'Give the private key as ${keychain:NAME} and store the PEM key, on one line, under Secrets below: it is never saved in the settings.',
      field: 'oauthKey',
    };
  }
  const algorithm = fields.oauthSigningAlgorithm;
  if (oauthPrivateKey !== '' && !(SIGNING_ALGORITHMS as readonly string[]).includes(algorithm)) {
    return {
      error: `A private key signs with ${SIGNING_ALGORITHMS.join(', ')}, not “${algorithm}”.`,
      field: 'oauthAlgorithm',
    };
  }
  return {
    oauth: {
      oauthGrant: CLIENT_CREDENTIALS,
      oauthPrivateKey,
      oauthSigningAlgorithm: oauthPrivateKey === '' ? '' : algorithm,
    },
  };
}

/** A server the dialog reviews. */
export interface McpTarget {
  scope: McpScope;
  name: string;
}

export type ApprovalKind = 'server' | 'tools';

/** What the approval dialog shows: one server's definition or its tools. */
export type McpApproval =
  | { kind: 'server'; target: McpTarget; review: McpServerReview | null }
  | { kind: 'tools'; target: McpTarget; review: McpToolsReview | null };

export interface McpApprovalState {
  /** Shown in the dialog (`null`: closed). Its review is `null` while it is read. */
  shown: McpApproval | null;
  /** Asked for while another was shown: each comes next, in order. */
  queue: { kind: ApprovalKind; target: McpTarget }[];
  /** An approval is being sent: the buttons wait. */
  busy: boolean;
  /** Reading or approving failed (an `ArborError`'s code and message). */
  error: { code: string; message: string } | null;
}

export const EMPTY_APPROVAL: McpApprovalState = {
  shown: null,
  queue: [],
  busy: false,
  error: null,
};

export type McpApprovalAction =
  /** Review a server: its definition (`server`) or its tools. */
  | { type: 'request'; kind: ApprovalKind; target: McpTarget }
  | { type: 'server_loaded'; review: McpServerReview }
  | { type: 'tools_loaded'; review: McpToolsReview }
  /** Reading or approving what is shown failed. */
  | { type: 'failed'; target: McpTarget; error: { code: string; message: string } }
  /** Read what is shown again (after a failure). */
  | { type: 'retry' }
  | { type: 'approving' }
  /** The definition is approved: its tools come next, for the same server. */
  | { type: 'server_approved'; target: McpTarget }
  /** The tools are approved: the dialog goes on to the next in the queue, or closes. */
  | { type: 'tools_approved'; target: McpTarget }
  /** Reject, Esc: nothing approved, the next in the queue. */
  | { type: 'close' };

export function sameTarget(a: McpTarget, b: McpTarget): boolean {
  return a.scope === b.scope && a.name === b.name;
}

function showing(kind: ApprovalKind, target: McpTarget): McpApproval {
  return { kind, target, review: null } as McpApproval;
}

function next(state: McpApprovalState): McpApprovalState {
  const [first, ...rest] = state.queue;
  return {
    shown: first ? showing(first.kind, first.target) : null,
    queue: rest,
    busy: false,
    error: null,
  };
}

/** The approval dialog after `action`; answers for anything but what is shown are dropped. */
export function reduceApproval(
  state: McpApprovalState,
  action: McpApprovalAction,
): McpApprovalState {
  const shown = state.shown;
  switch (action.type) {
    case 'request': {
      if (!shown) return { ...state, shown: showing(action.kind, action.target), error: null };
      const asked = (item: { kind: ApprovalKind; target: McpTarget }) =>
        item.kind === action.kind && sameTarget(item.target, action.target);
      if (asked(shown) || state.queue.some(asked)) return state;
      return { ...state, queue: [...state.queue, { kind: action.kind, target: action.target }] };
    }
    case 'server_loaded':
      if (shown?.kind !== 'server' || shown.target.name !== action.review.name) return state;
      return { ...state, shown: { ...shown, review: action.review }, error: null };
    case 'tools_loaded':
      if (
        shown?.kind !== 'tools' ||
        !sameTarget(shown.target, { scope: action.review.scope, name: action.review.server })
      ) {
        return state;
      }
      return { ...state, shown: { ...shown, review: action.review }, error: null };
    case 'failed':
      if (!shown || !sameTarget(shown.target, action.target)) return state;
      return { ...state, busy: false, error: action.error };
    case 'retry':
      if (!shown) return state;
      return { ...state, shown: showing(shown.kind, shown.target), busy: false, error: null };
    case 'approving':
      if (!shown?.review) return state;
      return { ...state, busy: true, error: null };
    case 'server_approved':
      if (shown?.kind !== 'server' || !sameTarget(shown.target, action.target)) return state;
      return { ...state, shown: showing('tools', shown.target), busy: false, error: null };
    case 'tools_approved':
      if (shown?.kind !== 'tools' || !sameTarget(shown.target, action.target)) return state;
      return next(state);
    case 'close':
      return next(state);
  }
}

/** Whether the dialog waits for Rust (reading a review: the server may be starting). */
export function approvalLoading(state: McpApprovalState): boolean {
  return state.shown !== null && state.shown.review === null && state.error === null;
}

/** Whether a tools review has anything to decide on. */
export function hasToolChanges(review: McpToolsReview): boolean {
  return review.added.length + review.changed.length + review.removed.length > 0;
}
