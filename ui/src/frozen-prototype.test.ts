// The app runs with Tauri's `freezePrototype: true`: nothing in the UI may write to
// Object.prototype (or assign over a property inherited from it).
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeAll, expect, it, vi } from 'vitest';
import { openProject, pickFolder } from './ipc';

vi.mock('./ipc', async (importOriginal) => {
  const original = await importOriginal<typeof import('./ipc')>();
  return {
    ...original,
    appInfo: vi.fn(async () => ({ name: 'Arbor', version: '0.1.0' })),
    openProject: vi.fn(),
    pickFolder: vi.fn(),
  };
});

let App: typeof import('./App.svelte').default;

beforeAll(async () => {
  Object.freeze(Object.prototype);
  App = (await import('./App.svelte')).default;
});

it('renders and opens a project with Object.prototype frozen', async () => {
  vi.mocked(openProject).mockResolvedValue({ name: 'r', path: '/r', isGitRepo: true });
  vi.mocked(pickFolder).mockResolvedValue(null);
  const user = userEvent.setup();
  render(App);

  expect(Object.isFrozen(Object.prototype)).toBe(true);
  await user.click(screen.getByTestId('clone-repository'));
  await user.click(screen.getByTestId('open-folder'));
  await user.type(screen.getByTestId('path-input'), '/r{Enter}');
  expect(await screen.findByTestId('git-badge')).toBeInTheDocument();
  await user.click(screen.getByTestId('close-project'));
  expect(screen.getByTestId('empty-state')).toBeInTheDocument();
});
