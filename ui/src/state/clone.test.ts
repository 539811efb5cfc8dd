import { describe, expect, it } from 'vitest';
import type { CloneProgress } from '../ipc/wire';
import { cloneRequest, formatBytes, progressBar } from './clone';

function report(patch: Partial<CloneProgress>): CloneProgress {
  return {
    phase: 'connecting',
    received_objects: 0,
    total_objects: 0,
    indexed_deltas: 0,
    total_deltas: 0,
    received_bytes: 0,
    bytes_per_second: 0,
    checked_out_files: 0,
    total_files: 0,
    ...patch,
  };
}

describe('the progress bar', () => {
  it('counts objects, then deltas, then files, with bytes and rate while receiving', () => {
    expect(progressBar(report({}))).toEqual({
      phase: 'connecting',
      value: 0,
      max: 0,
      label: 'Connecting',
    });
    const receiving = progressBar(
      report({
        phase: 'receiving',
        received_objects: 40,
        total_objects: 120,
        received_bytes: 3 * 1024 * 1024,
        bytes_per_second: 512 * 1024,
      }),
    );
    expect(receiving).toMatchObject({ value: 40, max: 120 });
    expect(receiving.label).toBe('Receiving objects 40/120 · 3.0 MiB at 512.0 KiB/s');
    expect(
      progressBar(report({ phase: 'resolving', indexed_deltas: 5, total_deltas: 9 })),
    ).toMatchObject({ value: 5, max: 9, label: 'Resolving deltas 5/9' });
    expect(
      progressBar(report({ phase: 'checking_out', checked_out_files: 3, total_files: 10 })),
    ).toMatchObject({ value: 3, max: 10 });
    expect(progressBar(report({ phase: 'done' }))).toMatchObject({ value: 1, max: 1 });
  });

  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GiB');
  });
});

describe('the clone request', () => {
  it('trims the fields and leaves empty ones out', () => {
    expect(cloneRequest({ url: ' owner/repo ', destination: ' ', depth: '', branch: '' })).toEqual({
      form: { url: 'owner/repo', destination: null, depth: null, branch: null },
    });
    expect(cloneRequest({ url: 'o/r', destination: '/tmp/x', depth: '1', branch: 'dev' })).toEqual({
      form: { url: 'o/r', destination: '/tmp/x', depth: 1, branch: 'dev' },
    });
    // The branch field: trimmed, and empty means the remote's default branch.
    expect(
      cloneRequest({ url: 'o/r', destination: '', depth: '', branch: ' release/1.x ' }),
    ).toEqual({ form: { url: 'o/r', destination: null, depth: null, branch: 'release/1.x' } });
    expect(cloneRequest({ url: 'o/r', destination: '', depth: '', branch: '   ' })).toEqual({
      form: { url: 'o/r', destination: null, depth: null, branch: null },
    });
  });

  it('says what is wrong with a missing URL or a bad depth', () => {
    expect(cloneRequest({ url: '  ', destination: '', depth: '', branch: '' })).toEqual({
      error: 'Enter a repository: owner/repo or an https:// URL.',
    });
    for (const depth of ['0', '-2', '1.5', 'ten']) {
      const result = cloneRequest({ url: 'o/r', destination: '', depth, branch: '' });
      expect(result).toHaveProperty('error');
      expect((result as { error: string }).error).toContain(depth);
    }
  });
});
