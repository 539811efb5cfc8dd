// The app runs with Tauri's `freezePrototype: true`: nothing in the UI (nor marked, lowlight or
// highlight.js) may write to Object.prototype or assign over a property inherited from it.
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeAll, expect, it, vi } from 'vitest';
import markdown from './state/recordings/markdown.jsonl?raw';
import tools from './state/recordings/tools.jsonl?raw';
import type { SessionEvent } from './ipc/wire';

vi.mock('./ipc', async (importOriginal) => {
  const { fakeIpc } = await import('./test-ipc');
  return fakeIpc(await importOriginal<typeof import('./ipc')>());
});

let App: typeof import('./App.svelte').default;
let emit: typeof import('./test-ipc').emit;

function events(text: string): SessionEvent[] {
  return (
    text
      .split('\n')
      .filter((line) => line.startsWith('{"type":') && !line.startsWith('{"type":"session"'))
      .map((line) => JSON.parse(line) as SessionEvent)
      // The end of a run reloads the stored view, which this fake does not keep.
      .filter((event) => event.type !== 'agent_end')
  );
}

beforeAll(async () => {
  Object.freeze(Object.prototype);
  App = (await import('./App.svelte')).default;
  ({ emit } = await import('./test-ipc'));
});

it('opens a project and renders a streamed chat with Object.prototype frozen', async () => {
  const user = userEvent.setup();
  render(App);

  expect(Object.isFrozen(Object.prototype)).toBe(true);
  await user.click(screen.getByTestId('clone-repository'));
  await user.type(screen.getByTestId('path-input'), '/r{Enter}');
  await screen.findByTestId('composer');
  emit(...events(markdown), ...events(tools));
  const answers = await screen.findAllByTestId('message');
  expect(answers.length).toBeGreaterThan(2);
  expect(await screen.findAllByTestId('tool-card')).toHaveLength(3);
  expect(document.querySelector('.hljs-keyword')).not.toBeNull();
});
