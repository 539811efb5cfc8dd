// Bringing a turn's files back, in words: what the preview would do, the confirm button's
// label (which says when files changed outside Arbor get overwritten), and what a restore or its
// undo did. Pure, so every wording is unit-tested (restore.test.ts).
import type { PlannedChange, RestoreInfo } from '../ipc/wire';

/** Error codes of the code state commands the UI answers to. */
export const CHANGED_OUTSIDE = 'changed_outside';
export const NOTHING_TO_UNDO = 'nothing_to_undo';
export const NO_CODE_STATE = 'no_code_state';

export interface PlanCounts {
  writes: number;
  deletes: number;
  /** Files changed outside Arbor since its last snapshot (a restore overwrites them). */
  outside: number;
}

export function planCounts(changes: readonly PlannedChange[]): PlanCounts {
  let writes = 0;
  let deletes = 0;
  let outside = 0;
  for (const change of changes) {
    if (change.write) writes++;
    else deletes++;
    if (change.changed_outside) outside++;
  }
  return { writes, deletes, outside };
}

export function files(n: number): string {
  return `${n} ${n === 1 ? 'file' : 'files'}`;
}

/** The confirm button: what pressing it does. */
export function confirmLabel(changes: readonly PlannedChange[]): string {
  const { outside } = planCounts(changes);
  if (changes.length === 0) return 'Nothing to restore';
  if (outside > 0) {
    return `Overwrite ${outside} changed ${outside === 1 ? 'file' : 'files'} and restore`;
  }
  return `Restore ${files(changes.length)}`;
}

/** The preview's first line: how many files are written and deleted. */
export function planSummary(changes: readonly PlannedChange[]): string {
  const { writes, deletes } = planCounts(changes);
  if (changes.length === 0) return 'The files already match this turn: nothing would change.';
  const parts: string[] = [];
  if (writes > 0) parts.push(`${files(writes)} written`);
  if (deletes > 0) parts.push(`${files(deletes)} deleted`);
  return `Restoring brings the files back as they were at this turn: ${parts.join(', ')}.`;
}

/** Planned changes as the preview lists them: those changed outside Arbor first. */
export function orderedPlan(changes: readonly PlannedChange[]): PlannedChange[] {
  return [...changes].sort(
    (a, b) =>
      Number(b.changed_outside) - Number(a.changed_outside) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

/** What a restore (or, with `undo`, its undo) did, for the status line. */
export function restoreSummary(info: RestoreInfo, undo = false): string {
  const total = info.written + info.deleted;
  const deleted = info.deleted > 0 ? ` (${info.deleted} deleted)` : '';
  if (undo) return total === 0 ? 'Undone' : `Undone: ${files(total)} changed back${deleted}`;
  return total === 0 ? 'Restored: the files already matched' : `Restored ${files(total)}${deleted}`;
}
