import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { ElicitationRequest } from '../../ipc';
import ProjectView from '../project/ProjectView.svelte';
import { BASH_REQUEST, ELICITATION_REQUEST, emit, REPO } from '../../test-ipc';

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

async function ask(request: ElicitationRequest = ELICITATION_REQUEST) {
  emit({ type: 'elicitation_requested', request });
  return screen.findByTestId('mcp-elicitation-dialog');
}

/** The field wrapper named `name`, and its control(s). */
function fieldOf(name: string) {
  const wrapper = screen
    .getAllByTestId('mcp-elicitation-field')
    .find((item) => item.dataset.name === name);
  if (!wrapper) throw new Error(`no field ${name}`);
  return { wrapper, inputs: within(wrapper).getAllByTestId('mcp-elicitation-input') };
}

function input(name: string): HTMLInputElement {
  return fieldOf(name).inputs[0] as HTMLInputElement;
}

describe('the elicitation dialog', () => {
  it('opens on a server’s question: who asks, its message, and the form from its defaults', async () => {
    await openWindow();
    const dialog = await ask();
    expect(dialog).toHaveAttribute('open');
    expect(dialog).toHaveAttribute('data-server', 'github');
    expect(screen.getByRole('dialog', { name: 'github asks' })).toBe(dialog);
    const message = screen.getByTestId('mcp-elicitation-message');
    expect(message.textContent).toBe(ELICITATION_REQUEST.message);
    expect(dialog.getAttribute('aria-describedby')).toBe(message.id);
    // One wrapper per field, with its name and kind.
    expect(
      screen
        .getAllByTestId('mcp-elicitation-field')
        .map((item) => [item.dataset.name, item.dataset.kind]),
    ).toEqual([
      ['name', 'text'],
      ['reason', 'text'],
      ['email', 'text'],
      ['age', 'integer'],
      ['score', 'number'],
      ['status', 'choice'],
      ['verified', 'boolean'],
      ['labels', 'choices'],
    ]);
    // The server's defaults, each control labelled by its title (or name).
    expect(screen.getByLabelText(/Your name/)).toBe(input('name'));
    expect(input('name')).toHaveValue('John Doe');
    expect(input('name')).toHaveAccessibleDescription('As it appears on the issue');
    expect(input('reason')).toHaveValue('');
    expect(input('reason')).toHaveAttribute('aria-required', 'true');
    expect(fieldOf('reason').wrapper).toHaveTextContent('required');
    expect(input('email')).toHaveAttribute('type', 'email');
    expect(input('age')).toHaveAttribute('type', 'number');
    expect(input('age')).toHaveAttribute('step', '1');
    expect(input('age')).toHaveValue(30);
    expect(input('score')).toHaveAttribute('step', 'any');
    expect(input('score')).toHaveValue(95.5);
    expect(input('status')).toHaveValue('active');
    expect(input('verified')).toBeChecked();
    const labels = fieldOf('labels').inputs;
    expect(labels.map((item) => item.dataset.value)).toEqual(['bug', 'docs', 'ci']);
    expect(labels.every((item) => !(item as HTMLInputElement).checked)).toBe(true);
    expect(screen.getByRole('group', { name: 'Labels' })).toBe(
      fieldOf('labels').wrapper.querySelector('fieldset'),
    );
    for (const control of screen.getAllByTestId('mcp-elicitation-input')) {
      expect(control).toHaveAccessibleName();
    }
    // The first field has the focus; nothing else waits.
    expect(input('name')).toHaveFocus();
    expect(dialog).not.toHaveTextContent('more waiting');
    expect(screen.queryByTestId('mcp-elicitation-error')).not.toBeInTheDocument();
  });

  it('will not accept with a required field empty, and says why', async () => {
    const user = await openWindow();
    await ask();
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    expect(ipc.answerElicitation).not.toHaveBeenCalled();
    expect(fieldOf('reason').wrapper).toHaveTextContent('Required.');
    expect(input('reason')).toHaveAttribute('aria-invalid', 'true');
    expect(input('reason')).toHaveAccessibleDescription('Required.');
    // The field that does not fit takes the focus; filling it lets the answer go.
    expect(input('reason')).toHaveFocus();
    await user.type(input('reason'), 'the release needs it');
    expect(fieldOf('reason').wrapper).not.toHaveTextContent('Required.');
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    expect(ipc.answerElicitation).toHaveBeenCalledOnce();
  });

  it('shows a field’s problem once the person leaves it', async () => {
    const user = await openWindow();
    await ask();
    await user.type(input('email'), 'nobody');
    expect(fieldOf('email').wrapper).not.toHaveTextContent('Not an email address');
    await user.tab();
    expect(fieldOf('email').wrapper).toHaveTextContent('Not an email address');
    await user.clear(input('age'));
    await user.type(input('age'), '12.5');
    await user.tab();
    expect(fieldOf('age').wrapper).toHaveTextContent('Expected a whole number.');
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    expect(ipc.answerElicitation).not.toHaveBeenCalled();
  });

  it('accepts with the content typed as the form says', async () => {
    const user = await openWindow();
    await ask();
    await user.clear(input('name'));
    await user.type(input('name'), 'Ada');
    await user.type(input('reason'), 'needed');
    await user.type(input('email'), 'ada@example.org');
    await user.clear(input('age'));
    await user.type(input('age'), '41');
    await user.clear(input('score'));
    await user.selectOptions(input('status'), 'pending');
    await user.click(input('verified'));
    const [bug, , ci] = fieldOf('labels').inputs;
    await user.click(ci);
    await user.click(bug);
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    // Numbers as numbers, the emptied optional score left out, the labels as a list.
    expect(ipc.answerElicitation).toHaveBeenCalledExactlyOnceWith('el-1', 'accept', {
      name: 'Ada',
      reason: 'needed',
      email: 'ada@example.org',
      age: 41,
      status: 'pending',
      verified: false,
      labels: ['ci', 'bug'],
    });
    await waitFor(() =>
      expect(screen.queryByTestId('mcp-elicitation-dialog')).not.toBeInTheDocument(),
    );
    expect(screen.getByTestId('mcp-elicitation-status')).toHaveTextContent(
      'Sent your answer to github.',
    );
  });

  it('declines and cancels without content', async () => {
    const user = await openWindow();
    await ask();
    await ask({ ...ELICITATION_REQUEST, request_id: 'el-2', server: 'linear' });
    expect(screen.getByTestId('mcp-elicitation-dialog')).toHaveTextContent('1 more waiting');
    await user.type(input('reason'), 'typed, then declined');
    await user.click(screen.getByTestId('mcp-elicitation-decline'));
    expect(ipc.answerElicitation).toHaveBeenLastCalledWith('el-1', 'decline', null);
    await waitFor(() =>
      expect(screen.getByTestId('mcp-elicitation-dialog')).toHaveAttribute('data-server', 'linear'),
    );
    // The next question starts from its own defaults.
    expect(input('reason')).toHaveValue('');
    expect(input('name')).toHaveFocus();
    await user.click(screen.getByTestId('mcp-elicitation-cancel'));
    expect(ipc.answerElicitation).toHaveBeenLastCalledWith('el-2', 'cancel', null);
    await waitFor(() =>
      expect(screen.queryByTestId('mcp-elicitation-dialog')).not.toBeInTheDocument(),
    );
  });

  it('cancels with Esc', async () => {
    const user = await openWindow();
    await ask();
    await user.keyboard('{Escape}');
    expect(ipc.answerElicitation).toHaveBeenCalledExactlyOnceWith('el-1', 'cancel', null);
    await waitFor(() =>
      expect(screen.queryByTestId('mcp-elicitation-dialog')).not.toBeInTheDocument(),
    );
    expect(screen.getByTestId('mcp-elicitation-status')).toHaveTextContent(
      'Dismissed github’s question.',
    );
  });

  it('keeps the question open with Rust’s refusal, and waits while an answer is sent', async () => {
    const user = await openWindow();
    await ask();
    await user.type(input('reason'), 'x');
    let refuse!: (error: unknown) => void;
    vi.mocked(ipc.answerElicitation).mockReturnValueOnce(
      new Promise((_, reject) => (refuse = reject)),
    );
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    for (const id of ['accept', 'decline', 'cancel']) {
      expect(screen.getByTestId(`mcp-elicitation-${id}`)).toBeDisabled();
    }
    // Esc while it is sent does nothing more.
    await user.keyboard('{Escape}');
    expect(ipc.answerElicitation).toHaveBeenCalledOnce();
    refuse(
      new ipc.ArborError(
        'invalid_request',
        'the answer does not fit the form: age: expected a whole number; name: required',
      ),
    );
    const error = await screen.findByTestId('mcp-elicitation-error');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveAttribute('data-code', 'invalid_request');
    expect(error).toHaveTextContent('age: expected a whole number; name: required');
    expect(screen.getByTestId('mcp-elicitation-dialog')).toBeInTheDocument();
    expect(screen.getByTestId('mcp-elicitation-accept')).toBeEnabled();
    // What was typed stays.
    expect(input('reason')).toHaveValue('x');
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    await waitFor(() =>
      expect(screen.queryByTestId('mcp-elicitation-dialog')).not.toBeInTheDocument(),
    );
  });

  it('closes when the question is resolved elsewhere, or its call ends', async () => {
    await openWindow();
    await ask();
    emit({ type: 'elicitation_resolved', request_id: 'el-1', action: 'cancel' });
    await waitFor(() =>
      expect(screen.queryByTestId('mcp-elicitation-dialog')).not.toBeInTheDocument(),
    );
    expect(screen.getByTestId('mcp-elicitation-status')).toHaveTextContent(
      'github’s question was withdrawn',
    );
    expect(ipc.answerElicitation).not.toHaveBeenCalled();
  });

  it('shows a hostile message and titles as text, never as HTML', async () => {
    await openWindow();
    const hostile = '<img src=x onerror="window.hacked = 1"><b>bold</b>\nsecond line';
    await ask({
      ...ELICITATION_REQUEST,
      message: hostile,
      fields: [
        {
          name: 'pick',
          title: '<script>alert(1)</script>',
          description: '<a href="https://evil.example">click</a>',
          kind: 'choice',
          required: true,
          options: [{ value: 'x', label: '<img src=y onerror=alert(2)>' }],
        },
      ],
      initial: {},
    });
    const dialog = screen.getByTestId('mcp-elicitation-dialog');
    expect(screen.getByTestId('mcp-elicitation-message').textContent).toBe(hostile);
    expect(dialog.querySelector('img, b, script, a')).toBeNull();
    expect(input('pick')).toHaveAccessibleName(/<script>alert\(1\)<\/script>/);
    expect(fieldOf('pick').wrapper).toHaveTextContent('<a href="https://evil.example">click</a>');
    expect(
      within(input('pick')).getByRole('option', { name: '<img src=y onerror=alert(2)>' }),
    ).toBeInTheDocument();
    expect((window as { hacked?: number }).hacked).toBeUndefined();
  });

  it('focuses Cancel on a form without fields, and waits behind a permission request', async () => {
    const user = await openWindow();
    emit({ type: 'permission_requested', request: BASH_REQUEST });
    await screen.findByTestId('permission-dialog');
    emit({
      type: 'elicitation_requested',
      request: { ...ELICITATION_REQUEST, fields: [], initial: {} },
    });
    expect(screen.queryByTestId('mcp-elicitation-dialog')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('permission-allow-once'));
    await screen.findByTestId('mcp-elicitation-dialog');
    expect(screen.getByTestId('mcp-elicitation-cancel')).toHaveFocus();
    await user.click(screen.getByTestId('mcp-elicitation-accept'));
    expect(ipc.answerElicitation).toHaveBeenCalledExactlyOnceWith('el-1', 'accept', {});
  });
});
