// The chat view's built-in `/` commands: what each does in the window, and what it answers to
// say under the composer (`null`: nothing). `/plan` is the composer's own; `/compact` is the
// chat view's (it shows the compacted conversation), handed in as `compact`.
import * as ipc from '../../ipc';
import { exportFormat, type BuiltinName } from './commands';

/** What the commands need of the chat view, read when one runs. */
export interface CommandContext {
  /** The chat's element: the header's pickers are found in it. */
  root: HTMLElement | undefined;
  /** The agent works. */
  running: boolean;
  /** The model's name, `undefined` before the chat is open. */
  model: string | undefined;
  /** `/new` (without it, the window's Ctrl+N is sent). */
  onnewsession?: () => void;
  /** `/tree` (without it, the window's Ctrl+T is sent). */
  ontoggletree?: () => void;
  /** `/compact [focus]`. */
  compact: (focus: string) => Promise<string | null>;
}

/** Runs the built-in command `name` with what followed it. */
export async function runBuiltin(
  name: BuiltinName,
  argument: string,
  context: CommandContext,
): Promise<string | null> {
  switch (name) {
    case 'new':
      if (context.onnewsession) context.onnewsession();
      else shortcut('n');
      return null;
    case 'compact':
      return context.compact(argument);
    case 'model':
      return openModelPicker(context.root);
    case 'thinking':
      return openThinkingPicker(context);
    case 'export': {
      const format = exportFormat(argument);
      if (!format) return `Export as Markdown (/export), html or jsonl, not “${argument}”.`;
      const path = await ipc.exportSession(format);
      return path ? `Exported to ${path}` : null;
    }
    case 'tree':
      if (context.ontoggletree) context.ontoggletree();
      else shortcut('t');
      return null;
    case 'plan':
      // The composer toggles plan mode itself.
      return null;
  }
}

/** Sends the window's Ctrl+`key` shortcut, for what only the project window can do. */
export function shortcut(key: string): void {
  window.dispatchEvent(new KeyboardEvent('keydown', { key, ctrlKey: true, bubbles: true }));
}

function openModelPicker(root: HTMLElement | undefined): string | null {
  const picker = root?.querySelector<HTMLButtonElement>('[data-testid="model-picker"]');
  if (!picker) return null;
  if (picker.disabled) return 'The model cannot change while the agent works.';
  if (picker.getAttribute('aria-expanded') === 'true') picker.focus();
  else picker.click();
  return null;
}

function openThinkingPicker({ root, running, model }: CommandContext): string | null {
  const picker = root?.querySelector<HTMLSelectElement>('#thinking-picker');
  if (!picker) return null;
  if (picker.disabled) {
    return running
      ? 'The thinking level cannot change while the agent works.'
      : `${model ?? 'This model'} does not reason: pick a model that does to set how hard it thinks.`;
  }
  picker.focus();
  try {
    // Opens the list where the webview can (Chromium; WebKit keeps the focus on it).
    picker.showPicker?.();
  } catch {
    // Not allowed here: the focused select opens with the keyboard.
  }
  return null;
}
