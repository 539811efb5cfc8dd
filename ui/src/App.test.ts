import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tick } from 'svelte';
import App from './App.svelte';
import { appInfo, ArborError, openProject, pickFolder, type ProjectInfo } from './ipc';

vi.mock('./ipc', async (importOriginal) => {
  const original = await importOriginal<typeof import('./ipc')>();
  return { ...original, appInfo: vi.fn(), openProject: vi.fn(), pickFolder: vi.fn() };
});

const REPO: ProjectInfo = { name: 'my-repo', path: '/home/me/src/my-repo', isGitRepo: true };
const PLAIN: ProjectInfo = { name: 'notes', path: '/home/me/notes', isGitRepo: false };

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup() {
  const user = userEvent.setup();
  render(App);
  return user;
}

async function openByPath(user: ReturnType<typeof userEvent.setup>, path: string) {
  await user.type(screen.getByTestId('path-input'), `${path}{Enter}`);
}

beforeEach(() => {
  vi.mocked(appInfo).mockReset().mockResolvedValue({ name: 'Arbor', version: '0.1.0' });
  vi.mocked(openProject).mockReset().mockResolvedValue(REPO);
  vi.mocked(pickFolder).mockReset().mockResolvedValue(null);
});

describe('empty state', () => {
  it('renders the first screen with its actions', () => {
    setup();

    const empty = screen.getByTestId('empty-state');
    expect(empty).toHaveTextContent('Open a project to start');
    expect(screen.getByTestId('open-folder')).toHaveTextContent('Open folder…');
    expect(screen.getByTestId('open-folder')).toBeEnabled();
    expect(screen.getByTestId('clone-repository')).toHaveTextContent('Clone repository…');
    expect(screen.getByTestId('path-input')).toHaveAttribute('placeholder', '/home/me/src/my-repo');
    expect(screen.getByTestId('open-path')).toBeDisabled();
    expect(screen.queryByTestId('project-view')).not.toBeInTheDocument();
    expect(screen.queryByTestId('current-project')).not.toBeInTheDocument();
    expect(screen.queryByTestId('clone-form')).not.toBeInTheDocument();
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
    expect(screen.getByRole('complementary', { name: 'Projects' })).toHaveTextContent('Projects');
  });

  it('shows the app name and version from appInfo in the sidebar footer', async () => {
    vi.mocked(appInfo).mockResolvedValue({ name: 'Arbor', version: '9.8.7' });
    setup();

    await waitFor(() => expect(screen.getByTestId('app-version')).toHaveTextContent('Arbor 9.8.7'));
    expect(appInfo).toHaveBeenCalledTimes(1);
  });

  it('falls back to the bare name when appInfo fails', async () => {
    const failure = Promise.reject(new ArborError('io', 'nope'));
    vi.mocked(appInfo).mockReturnValue(failure);
    setup();

    // Wait until the rejection has settled (the app's handler was attached first, so it has run)
    // and the DOM has caught up; only then is the fallback what the footer shows.
    await expect(failure).rejects.toBeInstanceOf(ArborError);
    await tick();
    expect(appInfo).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('app-version')).toHaveTextContent(/^Arbor$/);
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
  });

  it('keeps Open disabled for a blank path and enables it once a path is typed', async () => {
    const user = setup();
    const input = screen.getByTestId('path-input');

    await user.type(input, '   ');
    expect(screen.getByTestId('open-path')).toBeDisabled();
    await user.type(input, '{Enter}');
    expect(openProject).not.toHaveBeenCalled();

    await user.type(input, '/tmp/x');
    expect(screen.getByTestId('open-path')).toBeEnabled();
  });
});

describe('opening a project', () => {
  it('opens a typed path on Enter and shows it in the sidebar and main area', async () => {
    const user = setup();

    await openByPath(user, '/home/me/src/my-repo');

    expect(openProject).toHaveBeenCalledExactlyOnceWith('/home/me/src/my-repo');
    const view = await screen.findByTestId('project-view');
    expect(screen.queryByTestId('empty-state')).not.toBeInTheDocument();
    expect(screen.getByTestId('current-project')).toHaveTextContent(/^my-repo$/);
    const sidebarPath = screen.getByTestId('current-project-path');
    expect(sidebarPath).toHaveTextContent('/home/me/src/my-repo');
    expect(sidebarPath).toHaveAttribute('title', '/home/me/src/my-repo');
    expect(screen.getByTestId('project-name')).toHaveTextContent('my-repo');
    expect(screen.getByTestId('project-path')).toHaveTextContent('/home/me/src/my-repo');
    expect(view).toHaveTextContent('The agent chat arrives in the next version.');
  });

  it('opens with the Open button too, trimming surrounding spaces', async () => {
    const user = setup();

    await user.type(screen.getByTestId('path-input'), '  /home/me/src/my-repo  ');
    await user.click(screen.getByTestId('open-path'));

    expect(openProject).toHaveBeenCalledExactlyOnceWith('/home/me/src/my-repo');
    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
  });

  it('disables the actions and shows a busy state while opening', async () => {
    const pending = deferred<ProjectInfo>();
    vi.mocked(openProject).mockReturnValue(pending.promise);
    const user = setup();

    await openByPath(user, '/slow');

    expect(screen.getByTestId('busy')).toHaveTextContent('Opening project…');
    expect(screen.getByTestId('open-folder')).toBeDisabled();
    expect(screen.getByTestId('open-path')).toBeDisabled();

    pending.resolve(REPO);
    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
    expect(screen.queryByTestId('busy')).not.toBeInTheDocument();
  });

  it('shows the git badge only for a git repository', async () => {
    vi.mocked(openProject).mockResolvedValueOnce(PLAIN).mockResolvedValueOnce(REPO);
    const user = setup();

    await openByPath(user, PLAIN.path);
    await screen.findByTestId('project-view');
    expect(screen.getByTestId('project-name')).toHaveTextContent('notes');
    expect(screen.queryByTestId('git-badge')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('close-project'));
    await openByPath(user, REPO.path);
    await screen.findByTestId('project-view');
    expect(screen.getByTestId('git-badge')).toHaveTextContent(/^git$/);
  });

  it('returns to the empty state when the project is closed', async () => {
    const user = setup();
    await openByPath(user, REPO.path);
    await screen.findByTestId('project-view');

    await user.click(screen.getByTestId('close-project'));

    expect(screen.getByTestId('empty-state')).toBeInTheDocument();
    expect(screen.queryByTestId('project-view')).not.toBeInTheDocument();
    expect(screen.queryByTestId('current-project')).not.toBeInTheDocument();
  });
});

describe('errors', () => {
  it('shows the error message and code, and clears it on the next attempt', async () => {
    vi.mocked(openProject).mockRejectedValueOnce(
      new ArborError('not_found', 'No such folder: /home/me/typo'),
    );
    const retry = deferred<ProjectInfo>();
    vi.mocked(openProject).mockReturnValueOnce(retry.promise);
    const user = setup();

    await openByPath(user, '/home/me/typo');

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveAttribute('data-testid', 'error');
    expect(alert).toHaveAttribute('data-code', 'not_found');
    expect(alert).toHaveTextContent('No such folder: /home/me/typo');
    expect(screen.getByTestId('empty-state')).toBeInTheDocument();

    const input = screen.getByTestId('path-input');
    await user.clear(input);
    await openByPath(user, REPO.path);

    // Cleared as soon as the retry starts, before it settles.
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
    retry.resolve(REPO);
    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
  });

  it('normalises a non-ArborError rejection and can be dismissed', async () => {
    vi.mocked(openProject).mockRejectedValueOnce('plain failure');
    const user = setup();

    await openByPath(user, '/x');

    const alert = await screen.findByTestId('error');
    expect(alert).toHaveAttribute('data-code', 'unknown');
    expect(alert).toHaveTextContent('plain failure');

    await user.click(screen.getByTestId('dismiss-error'));
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
  });
});

describe('folder dialog', () => {
  it('does nothing when the dialog is cancelled', async () => {
    const user = setup();

    await user.click(screen.getByTestId('open-folder'));

    expect(pickFolder).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.getByTestId('open-folder')).toBeEnabled());
    expect(openProject).not.toHaveBeenCalled();
    expect(screen.getByTestId('empty-state')).toBeInTheDocument();
    expect(screen.queryByTestId('error')).not.toBeInTheDocument();
    expect(screen.queryByTestId('busy')).not.toBeInTheDocument();
  });

  it('opens the folder chosen in the dialog', async () => {
    vi.mocked(pickFolder).mockResolvedValue(REPO.path);
    const user = setup();

    await user.click(screen.getByTestId('open-folder'));

    expect(await screen.findByTestId('project-view')).toBeInTheDocument();
    expect(openProject).toHaveBeenCalledExactlyOnceWith(REPO.path);
    expect(screen.getByTestId('current-project')).toHaveTextContent('my-repo');
  });

  it('opens another folder from the sidebar while a project is open', async () => {
    vi.mocked(openProject).mockResolvedValueOnce(REPO).mockResolvedValueOnce(PLAIN);
    vi.mocked(pickFolder).mockResolvedValue(PLAIN.path);
    const user = setup();
    await openByPath(user, REPO.path);
    await screen.findByTestId('project-view');

    await user.click(screen.getByTestId('open-another-folder'));

    await waitFor(() => expect(screen.getByTestId('current-project')).toHaveTextContent('notes'));
    expect(openProject).toHaveBeenLastCalledWith(PLAIN.path);
    expect(screen.getByTestId('current-project-path')).toHaveTextContent('/home/me/notes');
  });
});

describe('clone form', () => {
  it('shows a disabled submit with honest text and can be closed', async () => {
    const user = setup();

    await user.click(screen.getByTestId('clone-repository'));

    const form = screen.getByTestId('clone-form');
    expect(form).toBeInTheDocument();
    await user.type(screen.getByTestId('clone-url'), 'https://example.com/owner/repo.git{Enter}');
    expect(screen.getByTestId('clone-submit')).toBeDisabled();
    expect(screen.getByTestId('clone-unavailable')).toHaveTextContent(
      'Cloning arrives in a later version of Arbor — for now, clone with git and use Open folder.',
    );
    expect(openProject).not.toHaveBeenCalled();
    expect(screen.getByTestId('clone-form')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('clone-form')).not.toBeInTheDocument();
  });
});
