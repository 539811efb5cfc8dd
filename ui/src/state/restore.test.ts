import { describe, expect, it } from 'vitest';
import type { PlannedChange } from '../ipc/wire';
import { confirmLabel, orderedPlan, planCounts, planSummary, restoreSummary } from './restore';

function planned(path: string, write: boolean, outside = false): PlannedChange {
  return { path, write, changed_outside: outside };
}

describe('the restore preview in words', () => {
  it('counts writes, deletes and files changed outside Arbor', () => {
    const plan = [planned('a', true), planned('b', false), planned('c', true, true)];
    expect(planCounts(plan)).toEqual({ writes: 2, deletes: 1, outside: 1 });
    expect(planSummary(plan)).toBe(
      'Restoring brings the files back as they were at this turn: 2 files written, 1 file deleted.',
    );
    expect(planSummary([])).toMatch(/nothing would change/);
  });

  it('says on the button what pressing it does', () => {
    expect(confirmLabel([planned('a', true)])).toBe('Restore 1 file');
    expect(confirmLabel([planned('a', true), planned('b', false)])).toBe('Restore 2 files');
    expect(confirmLabel([planned('a', true, true), planned('b', false)])).toBe(
      'Overwrite 1 changed file and restore',
    );
    expect(confirmLabel([planned('a', true, true), planned('b', false, true)])).toBe(
      'Overwrite 2 changed files and restore',
    );
    expect(confirmLabel([])).toBe('Nothing to restore');
  });

  it('lists the files changed outside Arbor first, then by path', () => {
    const plan = [planned('b', true), planned('z', false, true), planned('a', false)];
    expect(orderedPlan(plan).map((c) => c.path)).toEqual(['z', 'a', 'b']);
  });

  it('says what a restore or its undo did', () => {
    const info = { node_id: 'n', written: 2, deleted: 1, undo: 'x', restored: 'y' };
    expect(restoreSummary(info)).toBe('Restored 3 files (1 deleted)');
    expect(restoreSummary({ ...info, deleted: 0, written: 1 })).toBe('Restored 1 file');
    expect(restoreSummary({ ...info, written: 0, deleted: 0 })).toMatch(/already matched/);
    expect(restoreSummary(info, true)).toBe('Undone: 3 files changed back (1 deleted)');
    expect(restoreSummary({ ...info, written: 0, deleted: 0 }, true)).toBe('Undone');
  });
});
