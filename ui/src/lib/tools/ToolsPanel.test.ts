import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import ProjectView from '../project/ProjectView.svelte';
import { REPO, TOOLS } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
});

async function openPanel() {
  const user = userEvent.setup();
  render(ProjectView, {
    project: REPO,
    appLabel: 'Arbor 0.1.0',
    onclose: vi.fn(),
    onerror: vi.fn(),
    onopenpath: vi.fn(),
  });
  const button = screen.getByTestId('open-tools');
  expect(button.getAttribute('aria-label')).toMatch(/^Tools/);
  await user.click(button);
  const panel = await screen.findByTestId('tools-panel');
  await waitFor(() => expect(screen.getAllByTestId('tool-row')).toHaveLength(TOOLS.length));
  return { user, panel, button };
}

function row(name: string): HTMLElement {
  const found = screen.getAllByTestId('tool-row').find((element) => element.dataset.name === name);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

describe('the tools panel', () => {
  it('counts the tools waiting for review on its button', async () => {
    render(ProjectView, {
      project: REPO,
      appLabel: 'Arbor 0.1.0',
      onclose: vi.fn(),
      onerror: vi.fn(),
      onopenpath: vi.fn(),
    });
    const waiting = TOOLS.filter((tool) => tool.status === 'pending').length;
    expect(waiting).toBeGreaterThan(0);
    const button = screen.getByTestId('open-tools');
    await waitFor(() => expect(button.dataset.pending).toBe(String(waiting)));
    expect(button).toHaveAccessibleName(`Tools, ${waiting} waiting for your review`);
  });

  it('lists every tool with its status, pending ones first', async () => {
    const { panel } = await openPanel();
    expect(panel).toHaveAccessibleName('Tools');
    expect(
      screen.getAllByTestId('tool-row').map((r) => [r.dataset.name, r.dataset.status]),
    ).toEqual([
      ['release_notes', 'pending'],
      ['todo_finder', 'pending'],
      ['broken', 'invalid'],
      ['word_count', 'approved'],
      ['read', 'builtin'],
    ]);
    expect(within(row('read')).getByTestId('tool-badge')).toHaveTextContent('built-in');
    expect(within(row('release_notes')).getByTestId('tool-changed')).toHaveTextContent(
      'changed since approval',
    );
    expect(within(row('todo_finder')).queryByTestId('tool-changed')).not.toBeInTheDocument();
    expect(row('word_count')).toHaveTextContent('Counts the words of a file.');
    expect(row('word_count')).toHaveTextContent('this project');
    expect(within(row('word_count')).getByTestId('tool-permissions')).toHaveTextContent(
      'can read files in this project',
    );
    expect(row('word_count')).toHaveTextContent('count.js');
    // Revoke only for approved tools, Review only for pending ones.
    expect(screen.getAllByTestId('tool-revoke')).toHaveLength(1);
    expect(within(row('word_count')).getByTestId('tool-revoke')).toBeInTheDocument();
    expect(screen.getAllByTestId('tool-review')).toHaveLength(2);
    expect(within(row('read')).queryByRole('button')).not.toBeInTheDocument();
  });

  it('says what is wrong with an invalid tool, by file and line', async () => {
    await openPanel();
    const problems = within(row('broken')).getAllByTestId('tool-problem');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toHaveTextContent(
      'SKILL.md:3 description: the description is missing: say what the tool does',
    );
  });

  it('revokes an approved tool and reads the list again', async () => {
    const { user } = await openPanel();
    vi.mocked(ipc.listTools).mockResolvedValueOnce({
      tools: TOOLS.filter((tool) => tool.name !== 'word_count'),
    });
    await user.click(within(row('word_count')).getByTestId('tool-revoke'));
    expect(ipc.revokeTool).toHaveBeenCalledWith('word_count');
    await waitFor(() => expect(screen.getAllByTestId('tool-row')).toHaveLength(TOOLS.length - 1));
    expect(screen.getByTestId('tool-decision-status')).toHaveTextContent(
      'Revoked the tool word_count.',
    );
  });

  it('opens the approval dialog from Review, and reads the list again after a decision', async () => {
    const { user } = await openPanel();
    const review = within(row('release_notes')).getByTestId('tool-review');
    await user.click(review);
    expect(ipc.reviewTool).toHaveBeenCalledWith('ap-edit');
    const dialog = await screen.findByTestId('approval-dialog');
    expect(dialog).toHaveAttribute('data-approval-id', 'ap-edit');
    expect(dialog).toHaveAttribute('data-kind', 'edit_tool');
    expect(screen.getByTestId('approval-diff')).toHaveTextContent('fixed()');
    expect(screen.getByTestId('approval-reject')).toHaveFocus();
    const reads = vi.mocked(ipc.listTools).mock.calls.length;
    await user.click(screen.getByTestId('approval-approve'));
    expect(ipc.approveTool).toHaveBeenCalledWith('ap-edit');
    await waitFor(() => expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(vi.mocked(ipc.listTools).mock.calls.length).toBe(reads + 1));
    // The panel is still open, the focus back on Review.
    expect(screen.getByTestId('tools-panel')).toBeInTheDocument();
    expect(review).toHaveFocus();
  });

  it('shows why a review could not be read', async () => {
    const { user } = await openPanel();
    vi.mocked(ipc.reviewTool).mockRejectedValueOnce({
      code: 'not_pending',
      message: 'already answered',
    });
    await user.click(within(row('todo_finder')).getByTestId('tool-review'));
    expect(await screen.findByTestId('tools-error')).toHaveTextContent('already answered');
    expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument();
  });

  it('loads a tool’s runs on demand', async () => {
    const { user } = await openPanel();
    expect(ipc.toolHistory).not.toHaveBeenCalled();
    expect(within(row('read')).queryByTestId('tool-history-toggle')).not.toBeInTheDocument();
    const toggle = within(row('word_count')).getByTestId('tool-history-toggle');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(ipc.toolHistory).toHaveBeenCalledWith('word_count');
    const runs = await within(row('word_count')).findAllByTestId('tool-run');
    expect(runs.map((run) => run.dataset.status)).toEqual(['ok', 'error']);
    expect(runs[0]).toHaveTextContent('42 ms');
    expect(runs[0]).toHaveTextContent('{"path":"README.md"}');
    expect(runs[1]).toHaveTextContent('error');
    await user.click(within(row('todo_finder')).getByTestId('tool-history-toggle'));
    expect(await within(row('todo_finder')).findByTestId('tool-history-empty')).toBeInTheDocument();
  });

  it('closes with Esc and gives the focus back to its button', async () => {
    const { user, button } = await openPanel();
    expect(screen.getByTestId('tools-close')).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('tools-panel')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
  });

  it('shows a loading state, then why the list could not be read', async () => {
    let fail: (reason: unknown) => void = () => {};
    const user = userEvent.setup();
    render(ProjectView, {
      project: REPO,
      appLabel: 'Arbor 0.1.0',
      onclose: vi.fn(),
      onerror: vi.fn(),
      onopenpath: vi.fn(),
    });
    // The window counts the waiting tools first; the panel's own read is the next one.
    await waitFor(() => expect(screen.getByTestId('open-tools').dataset.pending).not.toBe('0'));
    vi.mocked(ipc.listTools).mockImplementationOnce(
      () => new Promise((_, reject) => (fail = reject)),
    );
    await user.click(screen.getByTestId('open-tools'));
    expect(await screen.findByTestId('tools-loading')).toBeInTheDocument();
    fail({ code: 'store', message: 'the database is locked' });
    expect(await screen.findByTestId('tools-error')).toHaveAttribute('data-code', 'store');
    expect(screen.queryByTestId('tools-loading')).not.toBeInTheDocument();
  });
});
