// The clone form's view model: pure functions over the progress reports Rust sends, so the bar,
// its label and the form's checks are unit-tested without a webview.
import type { CloneForm, ClonePhase, CloneProgress } from '../ipc/wire';

/** What the progress bar shows: a phase, `value` of `max` (`max` 0: not known yet). */
export interface ProgressBarView {
  phase: ClonePhase;
  value: number;
  max: number;
  label: string;
}

const PHASE_LABELS: Record<ClonePhase, string> = {
  connecting: 'Connecting',
  receiving: 'Receiving objects',
  resolving: 'Resolving deltas',
  checking_out: 'Checking out files',
  done: 'Done',
};

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The bar for a report: objects while receiving, deltas while resolving, files at checkout. */
export function progressBar(progress: CloneProgress): ProgressBarView {
  const counts: Record<ClonePhase, [number, number]> = {
    connecting: [0, 0],
    receiving: [progress.received_objects, progress.total_objects],
    resolving: [progress.indexed_deltas, progress.total_deltas],
    checking_out: [progress.checked_out_files, progress.total_files],
    done: [1, 1],
  };
  const [value, max] = counts[progress.phase];
  let label = PHASE_LABELS[progress.phase];
  if (max > 0 && progress.phase !== 'done') label += ` ${value}/${max}`;
  if (progress.received_bytes > 0 && progress.phase === 'receiving') {
    label += ` · ${formatBytes(progress.received_bytes)}`;
    if (progress.bytes_per_second > 0) label += ` at ${formatBytes(progress.bytes_per_second)}/s`;
  }
  return { phase: progress.phase, value: Math.min(value, max), max, label };
}

/** The form's fields as typed. */
export interface CloneFields {
  url: string;
  destination: string;
  depth: string;
  branch: string;
}

/** The request for Rust, or what is wrong with the fields (Rust checks the URL itself). */
export function cloneRequest(fields: CloneFields): { form: CloneForm } | { error: string } {
  const url = fields.url.trim();
  if (!url) return { error: 'Enter a repository: owner/repo or an https:// URL.' };
  const depthText = fields.depth.trim();
  let depth: number | null = null;
  if (depthText) {
    const parsed = Number(depthText);
    if (!Number.isInteger(parsed) || parsed < 1) {
      return { error: `Depth must be a whole number of commits (1 or more), not “${depthText}”.` };
    }
    depth = parsed;
  }
  const destination = fields.destination.trim() || null;
  const branch = fields.branch.trim() || null;
  return { form: { url, destination, depth, branch } };
}
