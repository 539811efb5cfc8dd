import { describe, expect, it } from 'vitest';
import { BUILTINS, type Command } from './commands';
import { commandActiveIndex, menuIds, menuKeyAction } from './menu-keys';

describe('keys in an open menu', () => {
  it('move with the arrows, choose with Enter and Tab, close with Esc', () => {
    expect(menuKeyAction('ArrowDown', false)).toEqual({ kind: 'move', step: 1 });
    expect(menuKeyAction('ArrowUp', false)).toEqual({ kind: 'move', step: -1 });
    expect(menuKeyAction('Enter', false)).toEqual({ kind: 'choose', how: 'enter' });
    expect(menuKeyAction('Tab', false)).toEqual({ kind: 'choose', how: 'tab' });
    expect(menuKeyAction('Escape', false)).toEqual({ kind: 'close' });
  });

  it('leave Shift+Enter, Shift+Tab and every other key to the message', () => {
    expect(menuKeyAction('Enter', true)).toBeNull();
    expect(menuKeyAction('Tab', true)).toBeNull();
    expect(menuKeyAction('a', false)).toBeNull();
    expect(menuKeyAction('ArrowLeft', false)).toBeNull();
  });
});

describe('the active command', () => {
  const news: Command = {
    kind: 'skill',
    name: 'news',
    description: 'Reads the news',
    argument: '',
    whileRunning: true,
  };

  it('is the one named in full, else the first', () => {
    const newOnes = [news, BUILTINS[0]];
    expect(commandActiveIndex(newOnes, 'new')).toBe(1);
    expect(commandActiveIndex(newOnes, 'NEW')).toBe(1);
    expect(commandActiveIndex(newOnes, 'ne')).toBe(0);
    expect(commandActiveIndex(newOnes, null)).toBe(0);
    expect(commandActiveIndex([], 'new')).toBe(-1);
  });
});

describe('the ids the message names', () => {
  it('are the open listbox and its active option', () => {
    expect(menuIds('command', 2)).toEqual({
      controls: 'composer-commands',
      activeId: 'composer-commands-2',
    });
    expect(menuIds('mention', 0)).toEqual({
      controls: 'composer-mentions',
      activeId: 'composer-mentions-0',
    });
    expect(menuIds('mention', -1)).toEqual({
      controls: 'composer-mentions',
      activeId: undefined,
    });
    expect(menuIds(null, 0)).toEqual({ controls: undefined, activeId: undefined });
  });
});
