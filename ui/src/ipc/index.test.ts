import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  abort,
  appInfo,
  ArborError,
  editMessage,
  openProject,
  pickFolder,
  prompt,
  readDocument,
  regenerate,
  setModel,
  startSession,
  switchSession,
  toArborError,
} from './index';

type Call = { cmd: string; args: unknown };

/** Records every IPC call and answers it with `respond`. */
function recordIPC(respond: (cmd: string, args: unknown) => unknown): Call[] {
  const calls: Call[] = [];
  mockIPC((cmd, args) => {
    calls.push({ cmd, args });
    return respond(cmd, args);
  });
  return calls;
}

async function rejection(promise: Promise<unknown>): Promise<ArborError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ArborError);
    return error as ArborError;
  }
  throw new Error('expected the promise to reject');
}

afterEach(() => {
  clearMocks();
});

describe('appInfo', () => {
  it('invokes app_info and returns its answer', async () => {
    const calls = recordIPC(() => ({ name: 'Arbor', version: '0.1.0' }));

    await expect(appInfo()).resolves.toEqual({ name: 'Arbor', version: '0.1.0' });
    expect(calls).toHaveLength(1);
    expect(calls[0].cmd).toBe('app_info');
  });
});

describe('openProject', () => {
  it('invokes open_project with the path', async () => {
    const project = { id: 'p1', name: 'my-repo', path: '/home/me/src/my-repo', is_git_repo: true };
    const opened = { project, window: 'this' };
    const calls = recordIPC(() => opened);

    await expect(openProject('/home/me/src/my-repo')).resolves.toEqual(opened);
    expect(calls).toEqual([{ cmd: 'open_project', args: { path: '/home/me/src/my-repo' } }]);
  });

  it.each(['not_found', 'not_a_directory', 'invalid_path', 'io'])(
    'turns a {code: %s, message} rejection into an ArborError with that code',
    async (code) => {
      recordIPC(() => {
        throw { code, message: `failed with ${code}` };
      });

      const error = await rejection(openProject('/nope'));
      expect(error.code).toBe(code);
      expect(error.message).toBe(`failed with ${code}`);
      expect(error.name).toBe('ArborError');
    },
  );

  it('turns a string rejection into code "unknown" with that message', async () => {
    recordIPC(() => {
      throw 'the backend panicked';
    });

    const error = await rejection(openProject('/x'));
    expect(error.code).toBe('unknown');
    expect(error.message).toBe('the backend panicked');
  });

  it('turns any other rejection into code "unknown" with a readable message', async () => {
    recordIPC(() => {
      throw { status: 500 };
    });

    const error = await rejection(openProject('/x'));
    expect(error.code).toBe('unknown');
    expect(error.message).toBe('Unexpected error: {"status":500}');
  });
});

describe('toArborError', () => {
  it('keeps the message of an Error', () => {
    const error = toArborError(new TypeError('boom'));
    expect(error).toBeInstanceOf(ArborError);
    expect(error.code).toBe('unknown');
    expect(error.message).toBe('boom');
  });

  it('returns an ArborError unchanged', () => {
    const original = new ArborError('io', 'disk full');
    expect(toArborError(original)).toBe(original);
  });

  it('describes null, undefined and empty strings readably', () => {
    expect(toArborError(null).message).toBe('Unexpected error: null');
    expect(toArborError(undefined).message).toBe('Unexpected error: undefined');
    expect(toArborError('').message).toBe('Unknown error');
  });

  it('does not take a non-string code as a code', () => {
    const error = toArborError({ code: 42, message: 'odd' });
    expect(error.code).toBe('unknown');
    expect(error.message).toBe('odd');
  });
});

describe('pickFolder', () => {
  it('asks the dialog plugin for one directory and returns the chosen path', async () => {
    const calls = recordIPC(() => '/home/me/src/picked');

    await expect(pickFolder()).resolves.toBe('/home/me/src/picked');
    expect(calls).toHaveLength(1);
    expect(calls[0].cmd).toBe('plugin:dialog|open');
    expect(calls[0].args).toEqual({
      options: { directory: true, multiple: false, title: 'Open folder' },
    });
  });

  it('returns null when the dialog is cancelled', async () => {
    recordIPC(() => null);

    await expect(pickFolder()).resolves.toBeNull();
  });

  it('normalises a dialog failure into an ArborError', async () => {
    recordIPC(() => {
      throw { code: 'io', message: 'no portal' };
    });

    const error = await rejection(pickFolder());
    expect(error.code).toBe('io');
    expect(error.message).toBe('no portal');
  });
});

describe('session commands', () => {
  it('send the argument names the Rust commands take', async () => {
    const calls = recordIPC(() => null);

    await prompt('hi', [{ data: 'AAAA', mime_type: 'image/png' }]);
    await editMessage('n1', 'again');
    await regenerate(null);
    await switchSession('s1');
    await setModel('mock', 'm1');
    await abort();

    expect(calls).toEqual([
      {
        cmd: 'prompt',
        args: {
          message: 'hi',
          images: [{ data: 'AAAA', mime_type: 'image/png' }],
          documents: [],
        },
      },
      { cmd: 'edit_message', args: { nodeId: 'n1', message: 'again' } },
      { cmd: 'regenerate', args: { nodeId: null } },
      { cmd: 'switch_session', args: { sessionId: 's1', nodeId: null } },
      { cmd: 'set_model', args: { provider: 'mock', model: 'm1' } },
      { cmd: 'abort', args: {} },
    ]);
  });

  it('prompt sends documents beside the images, and read_document the name and base64', async () => {
    const document = {
      name: 'spec.pdf',
      label: 'PDF',
      size: 3,
      parts: 1,
      part_name: 'page',
      omitted_chars: 0,
      text: '[spec.pdf: PDF, 1 page]\n--- page 1 ---\nhi\n',
    };
    const calls = recordIPC((cmd) => (cmd === 'read_document' ? document : null));

    await expect(readDocument('spec.pdf', 'JVBE')).resolves.toEqual(document);
    await prompt('', [], [document]);

    expect(calls).toEqual([
      { cmd: 'read_document', args: { name: 'spec.pdf', data: 'JVBE' } },
      { cmd: 'prompt', args: { message: '', images: [], documents: [document] } },
    ]);
  });

  it('read_document failures keep their code and the words to show', async () => {
    mockIPC(() => {
      throw { code: 'invalid_document', message: 'spec.pdf could not be read: it is damaged.' };
    });

    const error = await rejection(readDocument('spec.pdf', 'AAAA'));

    expect(error.code).toBe('invalid_document');
    expect(error.message).toBe('spec.pdf could not be read: it is damaged.');
  });

  it('start_session passes a Channel whose messages reach the callback', async () => {
    const calls = recordIPC(() => ({ session_id: null, title: null, entries: [], state: {} }));
    const seen: unknown[] = [];

    await startSession(null, (event) => seen.push(event));

    expect(calls[0].cmd).toBe('start_session');
    const args = calls[0].args as {
      sessionId: unknown;
      events: { onmessage: (m: unknown) => void };
    };
    expect(args.sessionId).toBeNull();
    expect(typeof args.events.onmessage).toBe('function');
  });
});
