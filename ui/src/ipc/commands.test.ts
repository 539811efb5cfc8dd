// The shell's command table (generated from src-tauri/src/command_table.rs) against the IPC
// functions: `tsc` checks every call's name, arguments and answer; this checks the other way,
// that no registered command is left without a function that calls it.
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from './generated/commands';
import source from './index.ts?raw';

describe('the command table', () => {
  it('lists every command once', () => {
    expect(COMMAND_NAMES.length).toBeGreaterThan(40);
    expect(new Set(COMMAND_NAMES).size).toBe(COMMAND_NAMES.length);
  });

  it.each(COMMAND_NAMES)('%s is called by an IPC function', (name) => {
    expect(source).toContain(`command('${name}'`);
  });

  it('the IPC functions call nothing outside the table', () => {
    const called = [...source.matchAll(/command\('([a-z_]+)'/g)].map((m) => m[1]);
    expect(called.length).toBeGreaterThan(40);
    for (const name of called) expect(COMMAND_NAMES as readonly string[]).toContain(name);
  });
});
