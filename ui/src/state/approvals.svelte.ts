// The window's pending tool approvals as Svelte state: proposals arrive from the session's stream
// (`approval_requested`, while the model's `create_tool` call waits) or from the tools panel's
// Review; the dialog shows the first. Only Approve and Reject answer a proposal: closing the
// dialog (Esc) takes it off the queue and leaves it pending, so the tools panel can review it.
import * as ipc from '../ipc';
import type { ArborError, SessionEvent } from '../ipc';
import {
  current,
  EMPTY_QUEUE,
  enqueue,
  proposalOfEvent,
  proposalOfReview,
  putFirst,
  remove,
  withLoadError,
  withReview,
  type ApprovalQueue,
  type Proposal,
} from './approvals';

export class ApprovalStore {
  queue = $state.raw<ApprovalQueue>(EMPTY_QUEUE);
  /** A decision that failed (shown in the dialog); cleared when the shown proposal changes. */
  error = $state.raw<ArborError | null>(null);
  /** A decision being sent: the dialog's buttons wait. */
  busy = $state(false);
  /** What the last decision did, in words (the window's live region reads it). */
  status = $state('');
  /** Bumped after every decision or revoke: the tools panel reads the list again. */
  version = $state(0);

  get shown(): Proposal | null {
    return current(this.queue);
  }

  /** How many wait behind the one shown. */
  get waiting(): number {
    return Math.max(0, this.queue.items.length - 1);
  }

  /** Takes one event of the session's stream; only the approval events concern it. */
  receive(event: SessionEvent): void {
    if (event.type === 'approval_resolved') {
      // Answered here (already off the queue) or elsewhere (the CLI, another client).
      const shown = this.queue.items.some((item) => item.approvalId === event.approval_id);
      this.queue = remove(this.queue, event.approval_id);
      if (shown) this.status = `The tool ${event.name} was ${event.status} elsewhere.`;
      this.version++;
      return;
    }
    if (event.type !== 'approval_requested') return;
    this.queue = enqueue(this.queue, proposalOfEvent(event));
    // The event names the helpers; the review says them in words, with the patches of a change.
    void this.#complete(event.approval_id);
  }

  async #complete(approvalId: string): Promise<void> {
    try {
      const review = await ipc.reviewTool(approvalId);
      this.queue = withReview(this.queue, review);
    } catch (raw) {
      this.queue = withLoadError(this.queue, approvalId, ipc.toArborError(raw));
    }
  }

  /** Shows a pending tool now (the tools panel's Review). Throws when it cannot be read. */
  async review(approvalId: string): Promise<void> {
    const review = await ipc.reviewTool(approvalId);
    if (this.shown?.approvalId !== approvalId) this.error = null;
    this.queue = putFirst(this.queue, proposalOfReview(review));
  }

  async approve(approvalId: string): Promise<boolean> {
    const name = this.#nameOf(approvalId);
    return this.#decide(
      approvalId,
      () => ipc.approveTool(approvalId),
      `Approved the tool ${name}.`,
    );
  }

  async reject(approvalId: string, reason: string | null): Promise<boolean> {
    const name = this.#nameOf(approvalId);
    return this.#decide(
      approvalId,
      () => ipc.rejectTool(approvalId, reason),
      `Rejected the tool ${name}.`,
    );
  }

  /** Closes the dialog without deciding: the proposal stays pending (and the model waits). */
  later(approvalId: string): void {
    const name = this.#nameOf(approvalId);
    this.queue = remove(this.queue, approvalId);
    this.error = null;
    this.status = `The tool ${name} is still waiting for your approval (Tools → Review).`;
  }

  /** Takes a tool's approval back. */
  async revoke(name: string): Promise<void> {
    await ipc.revokeTool(name);
    this.status = `Revoked the tool ${name}.`;
    this.version++;
  }

  #nameOf(approvalId: string): string {
    return this.queue.items.find((item) => item.approvalId === approvalId)?.name ?? approvalId;
  }

  async #decide(approvalId: string, send: () => Promise<unknown>, done: string): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.error = null;
    try {
      await send();
      this.queue = remove(this.queue, approvalId);
      this.status = done;
      return true;
    } catch (raw) {
      this.error = ipc.toArborError(raw);
      return false;
    } finally {
      this.busy = false;
      this.version++;
    }
  }
}
