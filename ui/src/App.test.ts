import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import App from './App.svelte';
import * as ipc from './ipc';
import { REPO, sessionItem } from './test-ipc';

vi.mock('./ipc', async (importOriginal) => {
  const { fakeIpc } = await import('./test-ipc');
  return fakeIpc(await importOriginal<typeof import('./ipc')>());
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

beforeEach(() => {
  vi.clearAllMocks();
});

describe('the start view', () => {
  it('shows the actions, the version and an empty recent list', async () => {
    render(App);
    expect(screen.getByTestId('empty-state')).toHaveTextContent('Open a project to start');
    expect(screen.getByTestId('open-folder')).toBeEnabled();
    expect(screen.getByTestId('open-path')).toBeDisabled();
    expect(await screen.findByTestId('no-recent-projects')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('app-version')).toHaveTextContent('Arbor 0.1.0'));
    expect(screen.queryByTestId('project-view')).not.toBeInTheDocument();
  });

  it('lists recent projects, greying out a folder that is gone', async () => {
    vi.mocked(ipc.recentProjects).mockResolvedValue([
      { id: 'a', name: 'alive', path: '/src/alive', exists: true, last_opened_at: Date.now() },
      { id: 'b', name: 'gone', path: '/src/gone', exists: false, last_opened_at: 0 },
    ]);
    const user = userEvent.setup();
    render(App);
    const items = await screen.findAllByTestId('recent-project');
    expect(items.map((item) => item.dataset.path)).toEqual(['/src/alive', '/src/gone']);
    expect(items[1]).toBeDisabled();
    expect(items[1]).toHaveTextContent('folder missing');
    await user.click(items[0]);
    expect(ipc.openProject).toHaveBeenCalledWith('/src/alive');
    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
  });

  it('opens a typed path into this window and starts its latest chat', async () => {
    const user = userEvent.setup();
    render(App);
    await user.type(screen.getByTestId('path-input'), '  /home/me/src/my-repo  {Enter}');
    expect(ipc.openProject).toHaveBeenCalledWith('/home/me/src/my-repo');
    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
    expect(screen.getByTestId('current-project')).toHaveTextContent('my-repo');
    expect(screen.getByTestId('current-project-path')).toHaveAttribute('title', REPO.path);
    expect(screen.getByTestId('git-badge')).toBeInTheDocument();
    await waitFor(() => expect(ipc.startSession).toHaveBeenCalledWith(null, expect.any(Function)));
    expect(await screen.findByTestId('composer')).toBeInTheDocument();
  });

  it('stays on the start view when the project opened in another window', async () => {
    vi.mocked(ipc.openProject).mockResolvedValueOnce({ project: REPO, window: 'other' });
    const user = userEvent.setup();
    render(App);
    await user.type(screen.getByTestId('path-input'), '/home/me/src/my-repo{Enter}');
    await waitFor(() => expect(ipc.recentProjects).toHaveBeenCalledTimes(2));
    expect(screen.getByTestId('empty-state')).toBeInTheDocument();
    expect(ipc.startSession).not.toHaveBeenCalled();
  });

  it('shows a failed open as an error with its code, and clears it on success', async () => {
    vi.mocked(ipc.openProject).mockRejectedValueOnce(
      new ipc.ArborError('not_found', 'There is no folder at /nope.'),
    );
    const user = userEvent.setup();
    render(App);
    await user.type(screen.getByTestId('path-input'), '/nope{Enter}');
    const alert = await screen.findByTestId('error');
    expect(alert).toHaveAttribute('data-code', 'not_found');
    expect(alert).toHaveTextContent('There is no folder at /nope.');
    await user.clear(screen.getByTestId('path-input'));
    await user.type(screen.getByTestId('path-input'), '/home/me/src/my-repo{Enter}');
    await screen.findByTestId('project-view');
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
  });

  it('is busy while a folder opens and refuses a second open', async () => {
    const pending = deferred<Awaited<ReturnType<typeof ipc.openProject>>>();
    vi.mocked(ipc.openProject).mockReturnValueOnce(pending.promise);
    const user = userEvent.setup();
    render(App);
    await user.type(screen.getByTestId('path-input'), '/slow{Enter}');
    expect(await screen.findByTestId('busy')).toHaveTextContent('Opening project…');
    expect(screen.getByTestId('open-folder')).toBeDisabled();
    pending.resolve({ project: REPO, window: 'this' });
    await screen.findByTestId('project-view');
    expect(ipc.openProject).toHaveBeenCalledTimes(1);
  });

  it('clones with a progress bar, then opens the clone as the project', async () => {
    const user = userEvent.setup();
    const pending = deferred<{ project: typeof REPO; window: 'this' }>();
    let report: ((progress: import('./ipc').CloneProgress) => void) | null = null;
    vi.mocked(ipc.cloneRepository).mockImplementationOnce(async (_form, onprogress) => {
      report = onprogress;
      return pending.promise;
    });
    render(App);
    await user.click(screen.getByTestId('clone-repository'));
    expect(screen.getByTestId('clone-url')).toHaveFocus();
    await user.type(screen.getByTestId('clone-url'), 'owner/repo');
    await waitFor(() =>
      expect(screen.getByTestId('clone-dest')).toHaveAttribute(
        'placeholder',
        '/home/me/.local/share/arbor/workspaces/owner/repo',
      ),
    );
    await user.type(screen.getByTestId('clone-depth'), '1');
    await user.click(screen.getByTestId('clone-submit'));
    expect(ipc.cloneRepository).toHaveBeenCalledWith(
      { url: 'owner/repo', destination: null, depth: 1, branch: null },
      expect.any(Function),
    );
    const bar = await screen.findByTestId('clone-progress');
    expect(bar).toHaveAttribute('data-phase', 'connecting');
    report!({
      phase: 'receiving',
      received_objects: 30,
      total_objects: 120,
      indexed_deltas: 0,
      total_deltas: 0,
      received_bytes: 2048,
      bytes_per_second: 1024,
      checked_out_files: 0,
      total_files: 0,
    });
    await waitFor(() => expect(bar).toHaveAttribute('data-phase', 'receiving'));
    expect(bar).toHaveAttribute('value', '30');
    expect(bar).toHaveAttribute('max', '120');
    expect(screen.getByTestId('clone-form')).toHaveTextContent('Receiving objects 30/120');
    // Cancel while it runs asks Rust to stop.
    await user.click(screen.getByTestId('clone-cancel'));
    expect(ipc.cancelClone).toHaveBeenCalledTimes(1);
    pending.resolve({ project: REPO, window: 'this' });
    await screen.findByTestId('project-view');
  });

  it('keeps the input and shows the error when a clone fails', async () => {
    const user = userEvent.setup();
    vi.mocked(ipc.cloneRepository).mockRejectedValueOnce({
      code: 'ssh_unsupported',
      message: 'Arbor clones over HTTPS',
    });
    render(App);
    await user.click(screen.getByTestId('clone-repository'));
    await user.type(screen.getByTestId('clone-url'), 'git@github.com:o/r.git');
    await user.click(screen.getByTestId('clone-submit'));
    const error = await screen.findByTestId('clone-error');
    expect(error).toHaveAttribute('data-code', 'ssh_unsupported');
    expect(screen.getByTestId('clone-url')).toHaveValue('git@github.com:o/r.git');
    // A bad depth is caught before Rust is asked.
    await user.type(screen.getByTestId('clone-depth'), 'x');
    await user.click(screen.getByTestId('clone-submit'));
    expect(await screen.findByTestId('clone-error')).toHaveTextContent('whole number');
    expect(ipc.cloneRepository).toHaveBeenCalledTimes(1);
    // Cancel when idle closes the form.
    await user.click(screen.getByTestId('clone-cancel'));
    expect(screen.queryByTestId('clone-form')).not.toBeInTheDocument();
  });
});

describe('a project window', () => {
  it('clones into a window of its own from its footer', async () => {
    const user = userEvent.setup();
    vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
    vi.mocked(ipc.cloneRepository).mockResolvedValueOnce({
      project: { ...REPO, name: 'other', path: '/home/me/other' },
      window: 'other',
    });
    render(App);
    await user.click(await screen.findByTestId('project-clone'));
    await user.type(screen.getByTestId('clone-url'), 'owner/other');
    await user.click(screen.getByTestId('clone-submit'));
    await waitFor(() => expect(screen.queryByTestId('clone-form')).not.toBeInTheDocument());
    expect(screen.getByTestId('current-project')).toHaveTextContent('my-repo');
  });

  it('starts on the project this window was opened for', async () => {
    vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
    render(App);
    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
    expect(ipc.recentProjects).not.toHaveBeenCalled();
  });

  it('closes the project back to the start view', async () => {
    vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByTestId('close-project'));
    expect(ipc.closeProject).toHaveBeenCalled();
    expect(await screen.findByTestId('empty-state')).toBeInTheDocument();
  });

  it('lists the sessions and opens one', async () => {
    vi.mocked(ipc.currentProject).mockResolvedValueOnce(REPO);
    vi.mocked(ipc.listSessions).mockResolvedValue([
      sessionItem({
        id: 's1',
        title: 'Fix the parser',
        updated_at: Date.now(),
        message_count: 4,
        cost: 0.02,
      }),
    ]);
    const user = userEvent.setup();
    render(App);
    const item = await screen.findByTestId('session-item');
    expect(item).toHaveAttribute('data-session-id', 's1');
    expect(item).toHaveTextContent('Fix the parser');
    expect(item).toHaveTextContent('4 messages');
    await user.click(within(item).getByText('Fix the parser'));
    expect(ipc.switchSession).toHaveBeenCalledWith('s1', null);
  });
});
