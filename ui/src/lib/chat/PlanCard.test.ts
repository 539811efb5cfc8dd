import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as ipc from '../../ipc';
import type { AssistantItem, ChatItem, MessageStatus, UserItem } from '../../state/chat';
import { plan } from '../../state/plan.svelte';
import PlanCard from './PlanCard.svelte';

vi.mock('../../ipc', async (importOriginal) => {
  const { fakeIpc } = await import('../../test-ipc');
  return fakeIpc(await importOriginal<typeof import('../../ipc')>());
});

const USER: UserItem = {
  kind: 'user',
  key: 'k1',
  nodeId: 'n1',
  siblings: [],
  text: 'Plan the parser rewrite',
  images: [],
  documents: [],
};

function answer(key: string, text: string, status: MessageStatus = 'done'): AssistantItem {
  return {
    kind: 'assistant',
    key,
    nodeId: null,
    siblings: [],
    content: [{ type: 'text', text }],
    status,
    errorMessage: null,
    model: 'm1',
  };
}

const PLAN = Array.from({ length: 20 }, (_, i) => `${i + 1}. Step ${i + 1}`).join('\n');

function setup(items: ChatItem[], running = false) {
  const onbuild = vi.fn();
  const result = render(PlanCard, { items, running, onbuild });
  return { onbuild, user: userEvent.setup(), ...result };
}

beforeEach(() => {
  vi.clearAllMocks();
  vi.mocked(ipc.setPlanMode).mockReset();
  plan.sync(true);
});

describe('the plan card', () => {
  it('shows the plan’s first lines once the answer is finished, and all on request', async () => {
    const { user } = setup([USER, answer('k2', PLAN)]);
    const card = screen.getByTestId('plan-card');
    expect(card).toHaveAccessibleName('Plan ready');
    const text = screen.getByTestId('plan-card-text');
    expect(text.textContent?.split('\n')).toHaveLength(12);
    expect(text).toHaveTextContent('12. Step 12');
    expect(text).not.toHaveTextContent('13. Step 13');
    const more = screen.getByTestId('plan-card-more');
    expect(more).toHaveTextContent('Show all (8 more lines)');
    expect(more).toHaveAttribute('aria-expanded', 'false');
    await user.click(more);
    expect(text).toHaveTextContent('20. Step 20');
    expect(more).toHaveTextContent('Show less');
  });

  it('builds: plan mode is left first, then the parent sends the prompt', async () => {
    const { user, onbuild } = setup([USER, answer('k2', '1. Read\n2. Change')]);
    expect(screen.queryByTestId('plan-card-more')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('plan-build'));
    expect(ipc.setPlanMode).toHaveBeenCalledWith(false);
    await waitFor(() => expect(onbuild).toHaveBeenCalledWith('Implement the plan.'));
    expect(plan.on).toBe(false);
    expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument();
  });

  it('does not send the prompt when plan mode could not be left', async () => {
    vi.mocked(ipc.setPlanMode).mockRejectedValueOnce({ code: 'busy', message: 'closing' });
    const { user, onbuild } = setup([USER, answer('k2', 'the plan')]);
    await user.click(screen.getByTestId('plan-build'));
    const error = await screen.findByTestId('plan-card-error');
    expect(error).toHaveAttribute('role', 'alert');
    expect(error).toHaveTextContent('closing');
    expect(onbuild).not.toHaveBeenCalled();
    expect(screen.getByTestId('plan-card')).toBeInTheDocument();
  });

  it('"Keep planning" hides it until the next answer', async () => {
    const { user, rerender } = setup([USER, answer('k2', 'first plan')]);
    await user.click(screen.getByTestId('plan-keep'));
    expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument();
    expect(ipc.setPlanMode).not.toHaveBeenCalled();
    await rerender({
      items: [USER, answer('k2', 'first plan'), USER, answer('k4', 'second plan')],
    });
    expect(screen.getByTestId('plan-card-text')).toHaveTextContent('second plan');
  });

  it('stays away outside plan mode, while a run streams, and before the answer is finished', async () => {
    const { rerender } = setup([USER, answer('k2', 'plan', 'streaming')]);
    expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument();
    await rerender({ items: [USER, answer('k2', 'plan')], running: true });
    expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument();
    await rerender({ items: [USER, answer('k2', 'plan', 'aborted')], running: false });
    expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument();
    await rerender({ items: [USER] });
    expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument();
    await rerender({ items: [USER, answer('k2', 'plan')] });
    expect(screen.getByTestId('plan-card')).toBeInTheDocument();
    plan.sync(false);
    await waitFor(() => expect(screen.queryByTestId('plan-card')).not.toBeInTheDocument());
  });
});
