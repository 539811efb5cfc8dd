// The one module through which the UI talks to the Rust side. Components import from here and
// never from `@tauri-apps/*` directly, so tests can replace this module wholesale.
import { invoke } from '@tauri-apps/api/core';
import { open } from '@tauri-apps/plugin-dialog';

export interface AppInfo {
  name: string;
  version: string;
}

export interface ProjectInfo {
  name: string;
  path: string;
  isGitRepo: boolean;
}

/** Every failed call into Rust surfaces as an `ArborError` with a stable `code`. */
export class ArborError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ArborError';
    this.code = code;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Turns whatever a rejected call produced into an `ArborError`. */
export function toArborError(raw: unknown): ArborError {
  if (raw instanceof ArborError) return raw;
  if (isRecord(raw) && typeof raw.code === 'string' && typeof raw.message === 'string') {
    return new ArborError(raw.code, raw.message);
  }
  if (typeof raw === 'string') {
    return new ArborError('unknown', raw || 'Unknown error');
  }
  if (raw instanceof Error) {
    return new ArborError('unknown', raw.message || raw.name);
  }
  if (isRecord(raw) && typeof raw.message === 'string' && raw.message) {
    return new ArborError('unknown', raw.message);
  }
  let detail: string;
  try {
    detail = JSON.stringify(raw) ?? String(raw);
  } catch {
    detail = String(raw);
  }
  return new ArborError('unknown', `Unexpected error: ${detail}`);
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (raw) {
    throw toArborError(raw);
  }
}

export function appInfo(): Promise<AppInfo> {
  return call(() => invoke<AppInfo>('app_info'));
}

export function openProject(path: string): Promise<ProjectInfo> {
  return call(() => invoke<ProjectInfo>('open_project', { path }));
}

/** Shows the native folder picker; resolves to the chosen path, or `null` when cancelled. */
export function pickFolder(): Promise<string | null> {
  return call(async () => {
    const picked = await open({ directory: true, multiple: false, title: 'Open folder' });
    return typeof picked === 'string' ? picked : null;
  });
}
