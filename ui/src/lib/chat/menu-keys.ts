// The composer's suggestion menus (`@` files, `/` commands), pure: what a key does while one is
// open, which command is active as it is typed, and the ids the textarea's aria attributes name.
import type { Command } from './commands';

/** The menu open over the composer. */
export type MenuKind = 'mention' | 'command';

/** What a key does in an open menu. */
export type MenuKeyAction =
  { kind: 'move'; step: 1 | -1 } | { kind: 'choose'; how: 'enter' | 'tab' } | { kind: 'close' };

/** Arrows move, Enter and Tab choose (not with Shift: a new line, the plan-mode toggle), Esc
 * closes; `null`: the key is not the menu's. */
export function menuKeyAction(key: string, shiftKey: boolean): MenuKeyAction | null {
  switch (key) {
    case 'ArrowDown':
      return { kind: 'move', step: 1 };
    case 'ArrowUp':
      return { kind: 'move', step: -1 };
    case 'Enter':
    case 'Tab':
      return shiftKey ? null : { kind: 'choose', how: key === 'Tab' ? 'tab' : 'enter' };
    case 'Escape':
      return { kind: 'close' };
    default:
      return null;
  }
}

/** The active command as `/typed` is typed: the one named in full (`/new` with a skill `/news`
 * beside it), else the first; -1 when none matches. */
export function commandActiveIndex(matches: readonly Command[], typed: string | null): number {
  if (matches.length === 0) return -1;
  return Math.max(
    0,
    matches.findIndex((c) => c.name.toLowerCase() === typed?.toLowerCase()),
  );
}

/** The listbox the composer controls (`aria-controls`) and its active option
 * (`aria-activedescendant`): `composer-commands-2`, `composer-mentions-0`. */
export function menuIds(
  menu: MenuKind | null,
  active: number,
): { controls: string | undefined; activeId: string | undefined } {
  if (menu === 'command') {
    return { controls: 'composer-commands', activeId: `composer-commands-${active}` };
  }
  if (menu === 'mention') {
    return {
      controls: 'composer-mentions',
      activeId: active >= 0 ? `composer-mentions-${active}` : undefined,
    };
  }
  return { controls: undefined, activeId: undefined };
}
