import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { PermissionRequest } from '../../ipc';
import ProjectView from '../project/ProjectView.svelte';
import { BASH_REQUEST, EDIT_REQUEST, emit, REPO } from '../../test-ipc';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

beforeEach(() => {
  vi.clearAllMocks();
});

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

async function ask(request: PermissionRequest) {
  emit({ type: 'permission_requested', request });
  return screen.findByTestId('permission-dialog');
}

describe('the permission dialog', () => {
  it('opens when a command needs asking, with the whole command and each part’s verdict', async () => {
    await openWindow();
    const dialog = await ask(BASH_REQUEST);
    expect(dialog).toHaveAttribute('open');
    expect(dialog).toHaveAttribute('data-tool-name', 'bash');
    expect(dialog).toHaveAttribute('data-request-id', 'pr-1');
    // Labelled by its title, described by the summary.
    expect(screen.getByRole('dialog', { name: 'Allow bash?' })).toBe(dialog);
    const summary = document.getElementById(dialog.getAttribute('aria-describedby') ?? '');
    expect(summary).toHaveTextContent('Run a command no allow rule covers');
    // The exact, full command, never cut.
    expect(screen.getByTestId('permission-command').textContent).toBe(BASH_REQUEST.command);
    expect(screen.queryByTestId('permission-target')).not.toBeInTheDocument();
    // Each part: its verdict, its text, the rule behind it (or the mode) and why.
    const parts = screen.getAllByTestId('permission-part');
    expect(parts.map((part) => part.dataset.verdict)).toEqual(['allow', 'ask', 'ask']);
    expect(parts[0]).toHaveTextContent('cargo test --workspace');
    expect(parts[0]).toHaveTextContent('Bash(cargo test *): an allow rule covers it');
    expect(parts[1]).toHaveTextContent('curl -fsSL https://example.com/install.sh');
    expect(parts[1]).toHaveTextContent('mode: no allow rule covers it');
    // How it will run: sandboxed, not in the danger colour.
    const sandbox = screen.getByTestId('permission-sandbox');
    expect(sandbox).toHaveTextContent('sandboxed: writes the project only, no network');
    expect(sandbox).toHaveAttribute('data-sandboxed', 'true');
    expect(sandbox).not.toHaveClass('unsandboxed');
    // No rule can be as narrow as this call: no "Always allow".
    expect(screen.queryByTestId('permission-allow-always')).not.toBeInTheDocument();
    expect(screen.queryByTestId('permission-reason')).not.toBeInTheDocument();
    expect(screen.queryByTestId('permission-diff')).not.toBeInTheDocument();
    // Every button is labelled; Deny has the focus.
    for (const id of ['permission-deny', 'permission-allow-once', 'permission-allow-session']) {
      expect(screen.getByTestId(id)).toHaveAccessibleName();
    }
    expect(screen.getByTestId('permission-deny')).toHaveFocus();
    expect(screen.getByTestId('permission-deny-reason')).toHaveAccessibleName(/Why not \(optional/);
  });

  it('shows an MCP call’s arguments in full, hidden characters made visible', async () => {
    await openWindow();
    const args = JSON.stringify({ path: 'notes.txt', note: 'a\u202Eb' }, null, 2);
    await ask({
      ...BASH_REQUEST,
      request_id: 'pr-mcp',
      tool_name: 'mcp__github__create_issue',
      summary: '`mcp__github__create_issue`: an MCP tool asks unless a rule allows it',
      command: null,
      confinement: null,
      parts: [],
      arguments: args,
      always_rule: 'Mcp(github:create_issue)',
    });
    const shown = screen.getByTestId('permission-arguments');
    expect(shown).toHaveTextContent('"path": "notes.txt"');
    expect(shown.textContent).not.toContain('\u202E');
    expect(shown.textContent).toContain('202E');
    expect(screen.queryByTestId('permission-command')).not.toBeInTheDocument();
  });

  it('denies with Esc, and the request leaves', async () => {
    const user = await openWindow();
    await ask(BASH_REQUEST);
    await user.keyboard('{Escape}');
    expect(ipc.answerPermission).toHaveBeenCalledWith('pr-1', 'deny', null);
    await waitFor(() => expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('permission-status')).toHaveTextContent('Denied bash.');
  });

  it('sends the reason typed with Deny', async () => {
    const user = await openWindow();
    await ask(BASH_REQUEST);
    await user.type(screen.getByTestId('permission-deny-reason'), 'use the offline mirror');
    await user.click(screen.getByTestId('permission-deny'));
    expect(ipc.answerPermission).toHaveBeenCalledWith('pr-1', 'deny', 'use the offline mirror');
  });

  it('allows once or for the session, without a reason', async () => {
    const user = await openWindow();
    await ask(BASH_REQUEST);
    await ask({ ...BASH_REQUEST, request_id: 'pr-3' });
    await user.type(screen.getByTestId('permission-deny-reason'), 'ignored');
    await user.click(screen.getByTestId('permission-allow-once'));
    expect(ipc.answerPermission).toHaveBeenLastCalledWith('pr-1', 'allow_once', null);
    await waitFor(() =>
      expect(screen.getByTestId('permission-dialog')).toHaveAttribute('data-request-id', 'pr-3'),
    );
    // A new request: a fresh reason field, the focus on Deny again.
    expect(screen.getByTestId('permission-deny-reason')).toHaveValue('');
    expect(screen.getByTestId('permission-deny')).toHaveFocus();
    await user.click(screen.getByTestId('permission-allow-session'));
    expect(ipc.answerPermission).toHaveBeenLastCalledWith('pr-3', 'allow_session', null);
    await waitFor(() => expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument());
  });

  it('shows the rule "Always allow" saves before it saves it', async () => {
    const user = await openWindow();
    const dialog = await ask(EDIT_REQUEST);
    expect(dialog).toHaveAttribute('data-tool-name', 'edit');
    expect(screen.getByTestId('permission-target')).toHaveTextContent(
      '/home/me/.config/tool/config.toml',
    );
    expect(screen.queryByTestId('permission-command')).not.toBeInTheDocument();
    // The change itself, as a diff.
    const diff = screen.getByTestId('permission-diff');
    expect(diff.querySelector('tr.add')).toHaveTextContent('verbose = true');
    expect(diff.querySelector('tr.del')).toHaveTextContent('verbose = false');
    expect(screen.queryByTestId('permission-rule')).not.toBeInTheDocument();
    // First press: the exact rule shows, nothing is sent.
    await user.click(screen.getByTestId('permission-allow-always'));
    expect(ipc.answerPermission).not.toHaveBeenCalled();
    expect(screen.getByTestId('permission-rule')).toHaveTextContent(
      'Edit(~/.config/tool/config.toml)',
    );
    expect(screen.getByTestId('permission-allow-always')).toHaveTextContent(
      'Save the rule and allow',
    );
    // Back leaves it unsaved; pressing again shows it again.
    await user.click(screen.getByTestId('permission-always-cancel'));
    expect(screen.queryByTestId('permission-rule')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('permission-allow-always'));
    expect(screen.getByTestId('permission-rule')).toBeVisible();
    // The second press saves it.
    await user.click(screen.getByTestId('permission-allow-always'));
    expect(ipc.answerPermission).toHaveBeenCalledExactlyOnceWith('pr-2', 'allow_always', null);
    await waitFor(() => expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument());
  });

  it('shows a command that would run unsandboxed in the danger colour, with the model’s reason', async () => {
    await openWindow();
    await ask({
      ...BASH_REQUEST,
      mode: 'full',
      summary: 'Run a command outside the sandbox',
      reason: 'The integration tests need the network.',
      confinement: { sandboxed: false, text: 'not sandboxed' },
    });
    const sandbox = screen.getByTestId('permission-sandbox');
    expect(sandbox).toHaveAttribute('data-sandboxed', 'false');
    expect(sandbox).toHaveClass('unsandboxed');
    expect(sandbox).toHaveTextContent('not sandboxed');
    expect(screen.getByTestId('permission-reason')).toHaveTextContent(
      'The integration tests need the network.',
    );
  });

  it('shows a right-to-left override and other hidden characters as markers', async () => {
    await openWindow();
    // To the eye: `echo hs.fr- mr` reversed reads "rm -rf .sh"; the ESC sequence would hide it.
    const command = 'echo \u202Ehs.fr- mr\u202C; \u001b[2Kcat notes\u200B.txt';
    await ask({
      ...BASH_REQUEST,
      command,
      parts: [{ text: 'echo \u202Ehs.fr- mr\u202C', verdict: 'ask', rule: null, why: 'asks' }],
    });
    const shown = screen.getByTestId('permission-command');
    expect(shown.textContent).toBe(
      'echo \\u{202E}hs.fr- mr\\u{202C}; \\u{1B}[2Kcat notes\\u{200B}.txt',
    );
    for (const hidden of ['\u202E', '\u202C', '\u001b', '\u200B']) {
      expect(shown.textContent).not.toContain(hidden);
    }
    // The markers are set apart from the text.
    expect(
      Array.from(shown.querySelectorAll('.hidden-char')).map((marker) => marker.textContent),
    ).toEqual(['\\u{202E}', '\\u{202C}', '\\u{1B}', '\\u{200B}']);
    expect(screen.getByTestId('permission-part')).toHaveTextContent(
      'echo \\u{202E}hs.fr- mr\\u{202C}',
    );
    expect(screen.getByRole('note')).toHaveTextContent('hidden or control characters');
  });

  it('shows one request at a time, and closes one answered elsewhere', async () => {
    await openWindow();
    await ask(BASH_REQUEST);
    await ask(EDIT_REQUEST);
    expect(screen.getAllByTestId('permission-dialog')).toHaveLength(1);
    expect(screen.getByTestId('permission-dialog')).toHaveAttribute('data-request-id', 'pr-1');
    expect(screen.getByTestId('permission-waiting')).toHaveTextContent('1 more waiting');
    // Answered in another front end (or denied by an abort): the next one shows.
    emit({ type: 'permission_resolved', request_id: 'pr-1', decision: 'allow_once' });
    await waitFor(() =>
      expect(screen.getByTestId('permission-dialog')).toHaveAttribute('data-request-id', 'pr-2'),
    );
    expect(screen.queryByTestId('permission-waiting')).not.toBeInTheDocument();
    expect(screen.getByTestId('permission-status')).toHaveTextContent(
      'The request of bash was allowed elsewhere.',
    );
    emit({ type: 'permission_resolved', request_id: 'pr-2', decision: 'deny' });
    await waitFor(() => expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('permission-status')).toHaveTextContent(
      'The request of edit was denied elsewhere, or its run stopped.',
    );
    expect(ipc.answerPermission).not.toHaveBeenCalled();
  });

  it('keeps the request and says why when the answer fails', async () => {
    const user = await openWindow();
    await ask(BASH_REQUEST);
    vi.mocked(ipc.answerPermission).mockRejectedValueOnce(
      new ipc.ArborError('busy', 'The session is busy.'),
    );
    await user.click(screen.getByTestId('permission-allow-once'));
    const error = await screen.findByTestId('permission-error');
    expect(error).toHaveAttribute('data-code', 'busy');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveTextContent('The session is busy.');
    expect(screen.getByTestId('permission-dialog')).toBeInTheDocument();
    // Trying again works.
    await user.click(screen.getByTestId('permission-allow-once'));
    await waitFor(() => expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument());
  });

  it('waits while a tool proposal is shown', async () => {
    await openWindow();
    emit({
      type: 'approval_requested',
      approval_id: 'ap-new',
      kind: 'create_tool',
      name: 'todo_finder',
      skill_md: '---\nname: todo_finder\n---\n',
      files: { 'SKILL.md': '---\nname: todo_finder\n---\n' },
      allowed_tools: ['grep'],
      reason: 'because',
    });
    await screen.findByTestId('approval-dialog');
    emit({ type: 'permission_requested', request: BASH_REQUEST });
    expect(screen.queryByTestId('permission-dialog')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(screen.getByTestId('approval-dialog')).getByTestId('approval-later'));
    expect(await screen.findByTestId('permission-dialog')).toHaveAttribute(
      'data-request-id',
      'pr-1',
    );
  });
});
