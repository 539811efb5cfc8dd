import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import ProjectView from '../project/ProjectView.svelte';
import { emit, REPO, REVIEWS, WORD_COUNT_JS, WORD_COUNT_SKILL } from '../../test-ipc';
import type { ApprovalEvent } from '../../state/approvals';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
});

/** `create_tool` waiting for the user: word_count, which reads files. */
const NEW_TOOL: ApprovalEvent = {
  type: 'approval_requested',
  approval_id: 'ap-wc',
  kind: 'create_tool',
  name: 'word_count',
  skill_md: WORD_COUNT_SKILL,
  files: { 'SKILL.md': WORD_COUNT_SKILL, 'count.js': WORD_COUNT_JS },
  allowed_tools: ['read'],
  reason: 'You asked for word counts of many files.',
  previous: null,
};

const REVIEW_WC = {
  approval_id: 'ap-wc',
  kind: 'create_tool',
  name: 'word_count',
  reason: NEW_TOOL.reason,
  skill_md: WORD_COUNT_SKILL,
  files: NEW_TOOL.files,
  allowed_tools: ['read'],
  permissions: ['can read files in this project'],
  previous: null,
  changes: [],
  status: 'pending',
};

async function openWindow() {
  const user = userEvent.setup();
  render(ProjectView, {
    project: REPO,
    appLabel: 'Arbor 0.1.0',
    onclose: vi.fn(),
    onerror: vi.fn(),
    onopenpath: vi.fn(),
  });
  await waitFor(() => expect(ipc.startSession).toHaveBeenCalled());
  await screen.findByTestId('chat-empty');
  return user;
}

async function propose(event: ApprovalEvent = NEW_TOOL, reviewWc = REVIEW_WC) {
  vi.mocked(ipc.reviewTool).mockImplementation(async (id) => {
    if (id === 'ap-wc') return reviewWc;
    const review = REVIEWS[id];
    if (!review) throw new ipc.ArborError('not_found', `no approval ${id}`);
    return review;
  });
  emit(event);
  return screen.findByTestId('approval-dialog');
}

describe('the approval dialog', () => {
  it('opens when the model proposes a tool, with everything to decide on', async () => {
    await openWindow();
    const dialog = await propose();
    expect(dialog).toHaveAttribute('data-approval-id', 'ap-wc');
    expect(dialog).toHaveAttribute('data-kind', 'create_tool');
    expect(dialog).toHaveAttribute('open');
    expect(screen.getByTestId('approval-name')).toHaveTextContent('word_count');
    expect(dialog).toHaveTextContent('New tool');
    expect(screen.getByTestId('approval-reason')).toHaveTextContent(
      'You asked for word counts of many files.',
    );
    // The permissions in words come with the review.
    expect(await screen.findByTestId('approval-permissions')).toHaveTextContent(
      'can read files in this project',
    );
    expect(ipc.reviewTool).toHaveBeenCalledWith('ap-wc');
    // SKILL.md rendered: Markdown as elements, its front matter apart.
    const skill = screen.getByTestId('approval-skill');
    expect(within(skill).getByRole('heading', { name: 'Word count' })).toBeInTheDocument();
    expect(skill.querySelector('strong')).toHaveTextContent('words');
    // Each file, the script highlighted.
    const files = screen.getAllByTestId('approval-file');
    expect(files.map((file) => file.dataset.path)).toEqual(['SKILL.md', 'count.js']);
    expect(files[1]).toHaveTextContent('const text = read(args.path);');
    expect(files[1].querySelector('.hljs-keyword')).toHaveTextContent('const');
    // No "always allow", and no diff for a new tool.
    expect(dialog).not.toHaveTextContent(/always/i);
    expect(screen.queryByTestId('approval-diff')).not.toBeInTheDocument();
  });

  it('shows the raw SKILL.md on demand', async () => {
    const user = await openWindow();
    await propose();
    await user.click(screen.getByTestId('approval-skill-raw'));
    expect(screen.queryByTestId('approval-skill')).not.toBeInTheDocument();
    expect(screen.getByTestId('approval-skill-text')).toHaveTextContent('allowed-tools: read');
    await user.click(screen.getByTestId('approval-skill-rendered'));
    expect(screen.getByTestId('approval-skill')).toBeInTheDocument();
  });

  it('says a tool without helpers cannot touch files', async () => {
    await openWindow();
    vi.mocked(ipc.reviewTool).mockResolvedValueOnce({
      ...REVIEW_WC,
      allowed_tools: [],
      permissions: [],
    });
    emit({ ...NEW_TOOL, allowed_tools: [] });
    expect(await screen.findByTestId('approval-permissions')).toHaveTextContent(
      'cannot touch files',
    );
  });

  it('gives Reject the focus, and sends the reason with it', async () => {
    const user = await openWindow();
    await propose();
    expect(screen.getByTestId('approval-reject')).toHaveFocus();
    await user.type(screen.getByTestId('approval-reject-reason'), 'use grep instead');
    await user.click(screen.getByTestId('approval-reject'));
    expect(ipc.rejectTool).toHaveBeenCalledWith('ap-wc', 'use grep instead');
    expect(ipc.approveTool).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('tool-decision-status')).toHaveTextContent(
      'Rejected the tool word_count.',
    );
  });

  it('rejects without a reason when none is given', async () => {
    const user = await openWindow();
    await propose();
    await user.keyboard('{Enter}');
    expect(ipc.rejectTool).toHaveBeenCalledWith('ap-wc', null);
  });

  it('approves', async () => {
    const user = await openWindow();
    await propose();
    await user.click(screen.getByTestId('approval-approve'));
    expect(ipc.approveTool).toHaveBeenCalledWith('ap-wc');
    expect(ipc.rejectTool).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('tool-decision-status')).toHaveTextContent(
      'Approved the tool word_count.',
    );
  });

  it('closes when the proposal is answered elsewhere, and keeps its own words after its own answer', async () => {
    const user = await openWindow();
    await propose();
    emit({
      type: 'approval_resolved',
      approval_id: 'ap-wc',
      name: 'word_count',
      status: 'approved',
    });
    await waitFor(() => expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('tool-decision-status')).toHaveTextContent(
      'The tool word_count was approved elsewhere.',
    );
    expect(ipc.approveTool).not.toHaveBeenCalled();

    await propose();
    await user.click(screen.getByTestId('approval-reject'));
    await waitFor(() => expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument());
    emit({
      type: 'approval_resolved',
      approval_id: 'ap-wc',
      name: 'word_count',
      status: 'rejected',
    });
    expect(screen.getByTestId('tool-decision-status')).toHaveTextContent(
      'Rejected the tool word_count.',
    );
  });

  it('closes on Esc without deciding (or stopping the run): the tool stays pending', async () => {
    const user = await openWindow();
    // The model's run goes on while its create_tool call waits: Esc must not stop it either.
    emit({ type: 'agent_start' });
    await waitFor(() => expect(screen.getByTestId('stop')).toBeInTheDocument());
    const composer = screen.getByTestId('composer');
    composer.focus();
    await propose();
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('approval-dialog')).not.toBeInTheDocument();
    expect(ipc.approveTool).not.toHaveBeenCalled();
    expect(ipc.rejectTool).not.toHaveBeenCalled();
    expect(ipc.abort).not.toHaveBeenCalled();
    expect(composer).toHaveFocus();
    expect(screen.getByTestId('tool-decision-status')).toHaveTextContent('still waiting');
  });

  it('shows one proposal at a time, the next after a decision', async () => {
    const user = await openWindow();
    await propose();
    emit({
      ...NEW_TOOL,
      approval_id: 'ap-new',
      name: 'todo_finder',
      reason: REVIEWS['ap-new'].reason,
      files: REVIEWS['ap-new'].files,
      skill_md: REVIEWS['ap-new'].skill_md,
    });
    expect(await screen.findByTestId('approval-waiting')).toHaveTextContent('1 more waiting');
    expect(screen.getAllByTestId('approval-dialog')).toHaveLength(1);
    await user.click(screen.getByTestId('approval-approve'));
    await waitFor(() =>
      expect(screen.getByTestId('approval-dialog')).toHaveAttribute('data-approval-id', 'ap-new'),
    );
    expect(screen.getByTestId('approval-name')).toHaveTextContent('todo_finder');
    expect(screen.queryByTestId('approval-waiting')).not.toBeInTheDocument();
    expect(screen.getByTestId('approval-reject')).toHaveFocus();
  });

  it('shows the diff against the approved version for a change', async () => {
    await openWindow();
    const review = REVIEWS['ap-edit'];
    const dialog = await propose({
      type: 'approval_requested',
      approval_id: review.approval_id,
      kind: 'edit_tool',
      name: review.name,
      skill_md: review.skill_md,
      files: review.files,
      allowed_tools: review.allowed_tools,
      reason: review.reason,
      previous: review.previous,
    });
    expect(dialog).toHaveAttribute('data-kind', 'edit_tool');
    expect(dialog).toHaveTextContent('Change to an approved tool');
    const diff = screen.getByTestId('approval-diff');
    await waitFor(() => expect(diff).toHaveTextContent('fixed()'));
    expect(diff.querySelector('[data-path="notes.js"]')).toBeInTheDocument();
    expect(diff.querySelector('tr.add')).toHaveTextContent(
      "write('NOTES.md', read('CHANGES.md') + fixed());",
    );
    expect(diff.querySelector('tr.del')).toHaveTextContent(
      "write('NOTES.md', read('CHANGES.md'));",
    );
  });

  it('says why a decision failed, in the dialog', async () => {
    const user = await openWindow();
    await propose();
    vi.mocked(ipc.approveTool).mockRejectedValueOnce({
      code: 'not_pending',
      message: 'this tool was already answered',
    });
    await user.click(screen.getByTestId('approval-approve'));
    const alert = await screen.findByTestId('approval-error');
    expect(alert).toHaveAttribute('role', 'alert');
    expect(alert).toHaveAttribute('data-code', 'not_pending');
    expect(alert).toHaveTextContent('already answered');
    expect(screen.getByTestId('approval-dialog')).toBeInTheDocument();
  });

  it('keeps a 500-line script inside its own scrolling box', async () => {
    await openWindow();
    const long = Array.from({ length: 500 }, (_, i) => `const line${i} = ${i};`).join('\n');
    const files = { ...NEW_TOOL.files, 'count.js': long };
    await propose({ ...NEW_TOOL, files }, { ...REVIEW_WC, files });
    const file = screen
      .getAllByTestId('approval-file')
      .find((element) => element.dataset.path === 'count.js');
    expect(file).toHaveTextContent('500 lines');
    expect(file?.querySelector('pre')).toHaveTextContent('const line499 = 499;');
  });
});
