import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { FileChange, SessionTreeView } from '../../ipc';
import { mentions } from '../../state/mentions.svelte';
import { TREE } from '../../test-ipc';
import FilesPanel from './FilesPanel.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

function change(path: string): FileChange {
  return { path, old_path: null, status: 'modified', added: 2, removed: 1, binary: false };
}

/** The fake tree with `src/main.rs` changed on the shown branch and `README.md` on another. */
const CHANGED: SessionTreeView = {
  ...TREE,
  nodes: TREE.nodes.map((node) =>
    node.id === 'a1b'
      ? { ...node, files: [change('src/main.rs')] }
      : node.id === 't1'
        ? { ...node, files: [change('README.md')] }
        : node,
  ),
};

function setup(version = 0) {
  const onclose = vi.fn();
  const result = render(FilesPanel, { version, onclose });
  return { onclose, user: userEvent.setup(), ...result };
}

function node(path: string): HTMLElement {
  const found = screen.getAllByTestId('file-node').find((element) => element.dataset.path === path);
  if (!found) throw new Error(`no file node ${path}`);
  return found;
}

beforeEach(() => {
  vi.clearAllMocks();
  // Back to the fake answers (a test's own answers stay in its test).
  for (const fn of [ipc.listFolder, ipc.previewFile, ipc.sessionTree]) vi.mocked(fn).mockReset();
  mentions.take();
});

describe('the files panel', () => {
  it('lists the project, dims ignored entries and marks what the shown branch changed', async () => {
    vi.mocked(ipc.sessionTree).mockResolvedValue(CHANGED);
    setup();
    const tree = await screen.findByRole('tree', { name: 'Project files' });
    expect(ipc.listFolder).toHaveBeenCalledWith('');
    await waitFor(() => expect(node('src')).toHaveAttribute('data-changed', 'true'));
    const rows = within(tree).getAllByRole('treeitem');
    expect(rows.map((row) => row.dataset.path)).toEqual(['src', 'target', 'README.md']);
    expect(node('src')).toHaveAttribute('aria-expanded', 'false');
    expect(node('src')).toHaveAttribute('aria-level', '1');
    expect(node('target')).toHaveAttribute('data-ignored', 'true');
    expect(node('target')).toHaveAccessibleName('target, ignored');
    expect(node('README.md')).toHaveAttribute('data-ignored', 'false');
    // Changed on another branch only: not marked.
    expect(node('README.md')).toHaveAttribute('data-changed', 'false');
    expect(node('README.md')).not.toHaveAttribute('aria-expanded');
    // One tab stop: the first row.
    expect(node('src')).toHaveAttribute('tabindex', '0');
    expect(node('README.md')).toHaveAttribute('tabindex', '-1');
  });

  it('opens folders lazily and moves with the arrow keys; Enter previews a file', async () => {
    vi.mocked(ipc.sessionTree).mockResolvedValue(CHANGED);
    const { user } = setup();
    await screen.findByRole('tree');
    await user.click(node('src'));
    expect(ipc.listFolder).toHaveBeenCalledWith('src');
    const main = await waitFor(() => node('src/main.rs'));
    expect(node('src')).toHaveAttribute('aria-expanded', 'true');
    expect(main).toHaveAttribute('aria-level', '2');
    await waitFor(() => expect(main).toHaveAttribute('data-changed', 'true'));
    expect(main).toHaveAccessibleName('main.rs, changed in this branch');

    // ↓ to the file, ← back to its folder, ← closes it, → opens it again, → into it.
    expect(node('src')).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(node('src/main.rs')).toHaveFocus();
    await user.keyboard('{ArrowLeft}');
    expect(node('src')).toHaveFocus();
    await user.keyboard('{ArrowLeft}');
    expect(node('src')).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByText('main.rs')).not.toBeInTheDocument();
    await user.keyboard('{ArrowRight}');
    expect(node('src')).toHaveAttribute('aria-expanded', 'true');
    // Listed once: opening it again shows what was read.
    expect(vi.mocked(ipc.listFolder).mock.calls.filter(([path]) => path === 'src')).toHaveLength(1);
    await user.keyboard('{ArrowRight}');
    expect(node('src/main.rs')).toHaveFocus();
    expect(node('src/main.rs')).toHaveAttribute('tabindex', '0');
    await user.keyboard('{Enter}');
    expect(ipc.previewFile).toHaveBeenCalledWith('src/main.rs');
    const preview = await screen.findByTestId('file-preview');
    expect(node('src/main.rs')).toHaveAttribute('aria-selected', 'true');
    expect(within(preview).getByTestId('file-preview-path')).toHaveTextContent('src/main.rs');
    expect(within(preview).getByTestId('file-preview-size')).toHaveTextContent('13 B');
    const text = await within(preview).findByTestId('file-preview-text');
    expect(text).toHaveTextContent('fn main() {}');
    // Highlighted as Rust from its extension: spans of highlight.js classes, no markup.
    expect(text).toHaveAttribute('data-highlighted', 'true');
    expect(text.querySelector('.hljs-keyword')).toHaveTextContent('fn');
    // End and Home.
    node('src/main.rs').focus();
    await user.keyboard('{End}');
    expect(node('README.md')).toHaveFocus();
    await user.keyboard('{Home}');
    expect(node('src')).toHaveFocus();
  });

  it('mentions the previewed file in the chat', async () => {
    const { user } = setup();
    await screen.findByRole('tree');
    await user.click(node('README.md'));
    const preview = await screen.findByTestId('file-preview');
    await user.click(within(preview).getByTestId('file-mention'));
    expect(mentions.pending).toEqual(['README.md']);
    expect(within(preview).getByRole('status')).toHaveTextContent('README.md mentioned');
    // Markdown has a grammar, yet a file named .md is shown highlighted as text, never rendered.
    expect(document.querySelector('h1')).toBeNull();
    await user.click(within(preview).getByTestId('file-preview-close'));
    expect(screen.queryByTestId('file-preview')).not.toBeInTheDocument();
    expect(node('README.md')).toHaveFocus();
  });

  it('shows images, documents, binary and cut files for what they are', async () => {
    vi.mocked(ipc.previewFile)
      .mockResolvedValueOnce({
        path: 'README.md',
        size: 300_000,
        kind: 'text',
        text: '# Big\n',
        truncated: true,
        image: null,
      })
      .mockResolvedValueOnce({
        path: 'README.md',
        size: 3 * 1024,
        kind: 'binary',
        text: null,
        truncated: false,
        image: null,
      })
      .mockResolvedValueOnce({
        path: 'README.md',
        size: 68,
        kind: 'image',
        text: null,
        truncated: false,
        image: { data: 'iVBORw0KGgo=', mime_type: 'image/png' },
      })
      .mockResolvedValueOnce({
        path: 'README.md',
        size: 2048,
        kind: 'document',
        text: '<b>Quarterly</b> report',
        truncated: false,
        image: null,
      });
    const { user } = setup();
    await screen.findByRole('tree');
    await user.click(node('README.md'));
    expect(await screen.findByTestId('file-truncated')).toHaveTextContent(
      'Only the first 256 KB is shown',
    );
    expect(screen.getByTestId('file-preview-size')).toHaveTextContent('293 KB');

    await user.click(node('README.md'));
    expect(await screen.findByTestId('file-preview-binary')).toHaveTextContent(
      'Binary file, 3 KB: no preview',
    );
    expect(screen.queryByTestId('file-truncated')).not.toBeInTheDocument();

    await user.click(node('README.md'));
    const image = await screen.findByTestId('file-preview-image');
    expect(image).toHaveAttribute('src', 'data:image/png;base64,iVBORw0KGgo=');
    expect(image).toHaveAccessibleName('Preview of README.md');

    await user.click(node('README.md'));
    const text = await screen.findByTestId('file-preview-text');
    expect(text).toHaveAttribute('data-kind', 'document');
    expect(text.textContent).toBe('<b>Quarterly</b> report');
    expect(text.querySelector('b')).toBeNull();
  });

  it('says why a file, a folder or the project could not be read', async () => {
    vi.mocked(ipc.previewFile).mockRejectedValueOnce({
      code: 'not_found',
      message: 'README.md is gone',
    });
    vi.mocked(ipc.listFolder).mockImplementation(async (path) => {
      if (path === 'src') throw { code: 'io', message: 'permission denied' };
      return {
        path,
        truncated: true,
        entries: [
          { path: 'src', name: 'src', is_dir: true, ignored: false, size: 0 },
          { path: 'README.md', name: 'README.md', is_dir: false, ignored: false, size: 12 },
        ],
      };
    });
    const { user } = setup();
    await screen.findByRole('tree');
    expect(screen.getByTestId('files-truncated')).toBeInTheDocument();
    await user.click(node('README.md'));
    const previewError = await screen.findByTestId('file-preview-error');
    expect(previewError).toHaveAttribute('role', 'alert');
    expect(previewError).toHaveTextContent('README.md is gone');
    await user.click(node('src'));
    const error = await screen.findByTestId('files-error');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveTextContent('Could not open src: permission denied');
    expect(node('src')).toHaveAttribute('aria-expanded', 'false');

    vi.mocked(ipc.listFolder).mockRejectedValue({ code: 'not_found', message: 'no folder' });
    await user.click(screen.getByTestId('files-refresh'));
    expect(
      await screen.findByText(/Could not list the project's files: no folder/),
    ).toHaveAttribute('role', 'alert');
  });

  it('reads the files and the changes again when the version changes', async () => {
    const { rerender } = setup();
    await screen.findByRole('tree');
    await waitFor(() => expect(ipc.sessionTree).toHaveBeenCalledTimes(1));
    expect(node('src')).toHaveAttribute('data-changed', 'false');
    vi.mocked(ipc.sessionTree).mockResolvedValue(CHANGED);
    await rerender({ version: 1 });
    await waitFor(() => expect(node('src')).toHaveAttribute('data-changed', 'true'));
    expect(ipc.sessionTree).toHaveBeenCalledTimes(2);
    expect(vi.mocked(ipc.listFolder).mock.calls.filter(([path]) => path === '')).toHaveLength(2);
  });

  it('closes with Esc or its close button, and never lets the chat see that Esc', async () => {
    const { user, onclose } = setup();
    const panel = screen.getByTestId('files-panel');
    expect(panel).toHaveFocus();
    const outside = vi.fn();
    window.addEventListener('keydown', outside);
    await user.keyboard('{Escape}');
    window.removeEventListener('keydown', outside);
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(outside).not.toHaveBeenCalled();
    await user.click(screen.getByTestId('files-close'));
    expect(onclose).toHaveBeenCalledTimes(2);
  });
});
