// A project window's permissions as Svelte state: the project's `PermissionsView` (read with
// `get_permissions` when the window opens the project; every permission command answers it
// whole) and the tool calls waiting for the user's yes, which arrive on the session's stream
// (`permission_requested`, handed over by `ChatStore.listen`) and leave it when answered here or
// elsewhere (`permission_resolved`: another front end, or an abort that denied them).
import * as ipc from '../ipc';
import type {
  ArborError,
  PermissionDecision,
  PermissionMode,
  PermissionRequest,
  PermissionsView,
  RuleEffect,
  RuleSource,
  SessionEvent,
} from '../ipc';
import {
  current,
  decisionText,
  EMPTY_PERMISSIONS,
  reduce,
  removeRequest,
  resolvedElsewhereText,
  waiting,
  withRestored,
  withView,
  type PermissionState,
} from './permissions';

export class PermissionStore {
  state = $state.raw<PermissionState>(EMPTY_PERMISSIONS);
  /** An answer that failed (shown in the dialog); cleared when the shown request changes. */
  error = $state.raw<ArborError | null>(null);
  /** An answer being sent: the dialog's buttons wait. */
  busy = $state(false);
  /** What the last answer did, in words (the window's live region reads it). */
  status = $state('');

  get view(): PermissionsView | null {
    return this.state.view;
  }

  get shown(): PermissionRequest | null {
    return current(this.state);
  }

  /** How many wait behind the one shown. */
  get waiting(): number {
    return waiting(this.state);
  }

  /** Reads the project's permissions (the window opened it). Throws an `ArborError`. */
  async load(): Promise<void> {
    this.#apply(await ipc.getPermissions());
  }

  /** Takes one event of the session's stream; only the permission events concern it. */
  receive(event: SessionEvent): void {
    const before = this.shown;
    if (event.type === 'permission_resolved') {
      // Still queued: not answered here (answers here leave the queue at once).
      const left = this.state.queue.find((item) => item.request_id === event.request_id);
      if (left) this.status = resolvedElsewhereText(event.decision, left.tool_name);
    }
    this.state = reduce(this.state, event);
    if (this.shown !== before) this.error = null;
  }

  /** Requests left waiting by sessions the window no longer shows, by session id. Not state:
   * nothing shows it until `enter` puts a session's back into the queue. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #away = new Map<string, PermissionRequest[]>();

  /**
   * The window shows another session (opened with its own stream): the requests of `sessionId`
   * (the one left) are put aside — only the shown session's requests can be answered here.
   */
  leave(sessionId: string | null): void {
    const before = this.shown;
    if (sessionId !== null && this.state.queue.length > 0) {
      this.#away.set(sessionId, this.state.queue);
    }
    this.state = { ...this.state, queue: [] };
    if (this.shown !== before) this.error = null;
  }

  /**
   * The window shows `sessionId` again: the requests it left waiting come back in front while
   * it still waits (`waiting`: its activity says so), else they are forgotten (answered, or its
   * run ended, meanwhile).
   */
  enter(sessionId: string | null, waiting: boolean): void {
    if (sessionId === null) return;
    const left = this.#away.get(sessionId) ?? [];
    this.#away.delete(sessionId);
    if (waiting) this.state = withRestored(this.state, left);
  }

  /**
   * Answers the request shown (a denial with the user's reason, or null). False when it failed:
   * the error shows and the request stays.
   */
  async answer(decision: PermissionDecision, reason: string | null = null): Promise<boolean> {
    const request = this.shown;
    if (!request || this.busy) return false;
    this.busy = true;
    this.error = null;
    try {
      await ipc.answerPermission(request.request_id, decision, decision === 'deny' ? reason : null);
      this.state = removeRequest(this.state, request.request_id);
      this.status = decisionText(decision, request.tool_name);
      return true;
    } catch (raw) {
      const error = ipc.toArborError(raw);
      if (error.code === 'not_found' || error.code === 'not_pending') {
        // Answered elsewhere or denied by an abort before this answer arrived: nothing waits.
        this.state = removeRequest(this.state, request.request_id);
        this.status = `The request of ${request.tool_name} was already answered.`;
        return false;
      }
      this.error = error;
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** The header's padlock menu. Throws an `ArborError`. */
  async setMode(mode: PermissionMode): Promise<void> {
    this.#apply(await ipc.setPermissionMode(mode));
  }

  /** The trust banner: trusts the clone (Rust also switches it to workspace mode). */
  async trust(): Promise<void> {
    this.#apply(await ipc.trustProject());
  }

  async addRule(rule: string, effect: RuleEffect, scope: RuleSource): Promise<void> {
    this.#apply(await ipc.addPermissionRule(rule, effect, scope));
  }

  async removeRule(rule: string, effect: RuleEffect, source: RuleSource): Promise<void> {
    this.#apply(await ipc.removePermissionRule(rule, effect, source));
  }

  async setSecretPaths(paths: string[]): Promise<void> {
    this.#apply(await ipc.setSecretPaths(paths));
  }

  #apply(view: PermissionsView): void {
    this.state = withView(this.state, view);
  }
}
