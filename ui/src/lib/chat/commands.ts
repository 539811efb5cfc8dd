// The composer's `/` commands, pure: the built-ins, the instruction-only skills the user may
// call by name, MCP servers' prompts (`/server:prompt`, made in `mcp-entries.ts`), which of them
// the menu offers for what is typed, and what Enter does with a line that starts with `/`. The
// composer runs built-ins through its parent; a skill becomes a prompt asking the model to use
// it; an MCP prompt's text is put in the composer to read and edit before sending.
import type { McpPromptView, ToolEntry } from '../../ipc/wire';

/** The built-in commands. */
export type BuiltinName = 'new' | 'compact' | 'model' | 'thinking' | 'plan' | 'export' | 'tree';

/** One command the menu offers. */
export type Command =
  | {
      kind: 'builtin';
      name: BuiltinName;
      description: string;
      /** What may follow the command, as its hint shows it (`[focus]`). */
      argument: string | null;
      /** It can run while the agent works. */
      whileRunning: boolean;
    }
  | {
      kind: 'skill';
      name: string;
      description: string;
      argument: string;
      whileRunning: true;
    }
  | {
      kind: 'mcp-prompt';
      /** `server:prompt`. */
      name: string;
      description: string;
      /** Its arguments (`<path> [focus]`), `null` for none. */
      argument: string | null;
      whileRunning: true;
      prompt: McpPromptView;
    };

export const BUILTINS: readonly Command[] = [
  {
    kind: 'builtin',
    name: 'new',
    description: 'Start a new chat',
    argument: null,
    whileRunning: true,
  },
  {
    kind: 'builtin',
    name: 'compact',
    description: 'Summarise the conversation so far to free context',
    argument: '[focus]',
    whileRunning: false,
  },
  {
    kind: 'builtin',
    name: 'model',
    description: 'Choose the model',
    argument: null,
    whileRunning: false,
  },
  {
    kind: 'builtin',
    name: 'thinking',
    description: 'Choose how hard the model thinks',
    argument: null,
    whileRunning: false,
  },
  {
    kind: 'builtin',
    name: 'plan',
    description: 'Turn plan mode on or off (Shift+Tab)',
    argument: null,
    whileRunning: true,
  },
  {
    kind: 'builtin',
    name: 'export',
    description: 'Save this chat to a file (Markdown; or html, jsonl)',
    argument: '[html|jsonl]',
    whileRunning: true,
  },
  {
    kind: 'builtin',
    name: 'tree',
    description: 'Show or hide the conversation tree (Ctrl+T)',
    argument: null,
    whileRunning: true,
  },
];

/**
 * The instruction-only skills the user may call as `/name`: approved tools without a script
 * (a SKILL.md alone), by name. A skill named like a built-in is left out: the built-in wins.
 */
export function skillCommands(tools: readonly ToolEntry[]): Command[] {
  const taken = new Set(BUILTINS.map((command) => command.name as string));
  return tools
    .filter((tool) => !tool.executable && tool.status === 'approved' && !taken.has(tool.name))
    .map((tool): Command => ({
      kind: 'skill',
      name: tool.name,
      description: tool.description,
      argument: '[what to do]',
      whileRunning: true,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The characters a command's name is made of (skills' names follow the Agent Skills rules; an
 * MCP prompt is `server:prompt`, and prompts' names may hold dots). */
const NAME = /^[A-Za-z0-9_.:-]*$/;

/**
 * What is typed of a command while the caret is in the first word of a line that starts with
 * `/` (`/comp|` → `comp`), or `null`: no menu. A word with other characters (`/etc/hosts`) is
 * no command.
 */
export function commandQuery(text: string, caret: number, selectionEnd = caret): string | null {
  if (!text.startsWith('/') || selectionEnd !== caret || caret < 1) return null;
  const word = /^\/\S*/.exec(text)?.[0] ?? '/';
  if (caret > word.length) return null;
  const query = word.slice(1);
  return NAME.test(query) ? query.slice(0, caret - 1) : null;
}

/** The commands whose name starts with `query` (any case; an MCP prompt's own name without its
 * server too), in their order: built-ins first. */
export function matchCommands(commands: readonly Command[], query: string): Command[] {
  const wanted = query.toLowerCase();
  return commands.filter(
    (command) =>
      command.name.toLowerCase().startsWith(wanted) ||
      (command.kind === 'mcp-prompt' && command.prompt.name.toLowerCase().startsWith(wanted)),
  );
}

/** A known command on a line, with what follows it. */
export interface CommandLine {
  command: Command;
  argument: string;
}

/**
 * The command `text` is, when its first word is `/` and a known command's name (any case):
 * `/compact the parser` → compact with `the parser`. `null` for anything else, so `/etc/hosts`
 * or `/unknown` is sent as text.
 */
export function parseCommand(text: string, commands: readonly Command[]): CommandLine | null {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const name = match[1].toLowerCase();
  const command = commands.find((c) => c.name.toLowerCase() === name);
  return command ? { command, argument: (match[2] ?? '').trim() } : null;
}

/**
 * What choosing `command` from the menu does with the word typed so far: `run` it at once, or
 * `complete` the line to `/name ` for the user to go on typing — a skill always wants to be told
 * what to do, unless its name is already typed in full.
 */
export function onChoose(command: Command, typed: string): 'run' | 'complete' {
  if (command.kind === 'skill' && typed.toLowerCase() !== command.name.toLowerCase()) {
    return 'complete';
  }
  return 'run';
}

/** Whether Tab completes `command` in the line (else it is chosen as with Enter): a name with a
 * space in it (an MCP prompt's) could not be typed back as a command. */
export function tabCompletes(command: Command): boolean {
  return !/\s/.test(command.name);
}

/** The line with the command's name in full, and a space for its argument. */
export function completeLine(text: string, command: Command): string {
  const rest = text.replace(/^\/\S*\s?/, '');
  return `/${command.name} ${rest}`;
}

/** The prompt a skill called by name sends: the model then reads its instructions. */
export function skillPrompt(name: string, argument: string): string {
  return argument ? `Use the \`${name}\` skill: ${argument}` : `Use the \`${name}\` skill.`;
}

/** The export formats `/export` takes (`''`: Markdown). */
export type ExportFormat = 'markdown' | 'jsonl' | 'html';

/** The format `/export`'s argument names, or `null` when it names none Arbor writes. */
export function exportFormat(argument: string): ExportFormat | null {
  switch (argument.trim().toLowerCase()) {
    case '':
    case 'md':
    case 'markdown':
      return 'markdown';
    case 'html':
      return 'html';
    case 'jsonl':
    case 'json':
      return 'jsonl';
    default:
      return null;
  }
}
