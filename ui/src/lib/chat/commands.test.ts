import { describe, expect, it } from 'vitest';
import type { ToolEntry } from '../../ipc/wire';
import { TOOLS } from '../../test-ipc';
import {
  BUILTINS,
  commandQuery,
  completeLine,
  exportFormat,
  matchCommands,
  onChoose,
  parseCommand,
  skillCommands,
  skillPrompt,
  tabCompletes,
  type Command,
} from './commands';
import { promptCommands } from './mcp-entries';

function tool(fields: Partial<ToolEntry> & Pick<ToolEntry, 'name'>): ToolEntry {
  return { ...TOOLS[1], executable: false, status: 'approved', description: 'Does it.', ...fields };
}

const SKILLS = skillCommands([
  tool({ name: 'review', description: 'Reviews the last change.' }),
  tool({ name: 'changelog', description: 'Writes the changelog.' }),
  // A script: a tool the model calls, not a skill to name.
  tool({ name: 'word_count', executable: true }),
  // Not approved: not offered.
  tool({ name: 'draft', status: 'pending' }),
  tool({ name: 'broken', status: 'invalid' }),
  // Named like a built-in: the built-in wins.
  tool({ name: 'new' }),
]);
const ALL: Command[] = [...BUILTINS, ...SKILLS];
const PROMPTS = promptCommands([
  {
    server: 'docs',
    scope: 'user',
    name: 'summary',
    command: '/docs:summary',
    description: 'Summarise.',
    arguments: [],
  },
  {
    server: 'git',
    scope: 'project',
    name: 'commit.message',
    command: '/git:commit.message',
    description: null,
    arguments: [{ name: 'style', required: false }],
  },
  {
    server: 'odd',
    scope: 'user',
    name: 'two words',
    command: '/odd:two words',
    description: null,
    arguments: [],
  },
]);
const WITH_PROMPTS: Command[] = [...ALL, ...PROMPTS];

describe('the commands offered', () => {
  it('are the built-ins, each with what it does', () => {
    expect(BUILTINS.map((c) => c.name)).toEqual([
      'new',
      'compact',
      'model',
      'thinking',
      'plan',
      'export',
      'tree',
    ]);
    for (const command of BUILTINS) expect(command.description).not.toBe('');
  });

  it('and the approved instruction-only skills, by name', () => {
    expect(SKILLS.map((c) => [c.name, c.kind, c.description])).toEqual([
      ['changelog', 'skill', 'Writes the changelog.'],
      ['review', 'skill', 'Reviews the last change.'],
    ]);
    // The fake's list has no instruction-only approved tool.
    expect(skillCommands(TOOLS)).toEqual([]);
  });
});

describe('what is typed', () => {
  it('opens the menu while the caret is in a first word after /', () => {
    expect(commandQuery('/', 1)).toBe('');
    expect(commandQuery('/comp', 5)).toBe('comp');
    expect(commandQuery('/compact', 3)).toBe('co');
    expect(commandQuery('/compact the parser', 8)).toBe('compact');
    // An MCP prompt: `server:prompt`, dots allowed.
    expect(commandQuery('/docs:sum', 9)).toBe('docs:sum');
    expect(commandQuery('/git:commit.me', 14)).toBe('git:commit.me');
  });

  it('does not for an argument, a path, text before or a selection', () => {
    expect(commandQuery('/compact the', 12)).toBeNull();
    expect(commandQuery('/compact ', 9)).toBeNull();
    expect(commandQuery('/etc/hosts', 4)).toBeNull();
    expect(commandQuery('see /new', 8)).toBeNull();
    expect(commandQuery(' /new', 5)).toBeNull();
    expect(commandQuery('/new', 4, 1)).toBeNull();
    expect(commandQuery('', 0)).toBeNull();
  });

  it('is matched by prefix, any case, built-ins first', () => {
    expect(matchCommands(ALL, '').map((c) => c.name)).toEqual([
      ...BUILTINS.map((c) => c.name),
      'changelog',
      'review',
    ]);
    expect(matchCommands(ALL, 'c').map((c) => c.name)).toEqual(['compact', 'changelog']);
    expect(matchCommands(ALL, 'TH').map((c) => c.name)).toEqual(['thinking']);
    expect(matchCommands(ALL, 'x')).toEqual([]);
  });

  it('matches an MCP prompt by `server:prompt` or by the prompt’s own name, after the rest', () => {
    expect(matchCommands(WITH_PROMPTS, 'docs').map((c) => c.name)).toEqual(['docs:summary']);
    expect(matchCommands(WITH_PROMPTS, 'S').map((c) => c.name)).toEqual(['docs:summary']);
    expect(matchCommands(WITH_PROMPTS, 'c').map((c) => c.name)).toEqual([
      'compact',
      'changelog',
      'git:commit.message',
    ]);
    expect(matchCommands(WITH_PROMPTS, 'ocs')).toEqual([]);
  });
});

describe('a line that starts with /', () => {
  it('is a known command with what follows it', () => {
    expect(parseCommand('/new', ALL)).toMatchObject({ command: { name: 'new' }, argument: '' });
    expect(parseCommand('  /compact   keep the parser work \n', ALL)).toMatchObject({
      command: { name: 'compact' },
      argument: 'keep the parser work',
    });
    expect(parseCommand('/Plan', ALL)).toMatchObject({ command: { name: 'plan' } });
    expect(parseCommand('/review the diff\nplease', ALL)).toMatchObject({
      command: { kind: 'skill', name: 'review' },
      argument: 'the diff\nplease',
    });
  });

  it('is text when the word is no command (a path, a typo)', () => {
    expect(parseCommand('/etc/hosts is odd', ALL)).toBeNull();
    expect(parseCommand('/unknown', ALL)).toBeNull();
    expect(parseCommand('/', ALL)).toBeNull();
    expect(parseCommand('/compacting', ALL)).toBeNull();
    expect(parseCommand('what does /new do', ALL)).toBeNull();
  });

  it('is an MCP prompt typed by `server:prompt`, with what follows it', () => {
    expect(parseCommand('/DOCS:summary', WITH_PROMPTS)).toMatchObject({
      command: { kind: 'mcp-prompt', name: 'docs:summary' },
      argument: '',
    });
    expect(parseCommand('/git:commit.message terse', WITH_PROMPTS)).toMatchObject({
      command: { kind: 'mcp-prompt', prompt: { server: 'git', name: 'commit.message' } },
      argument: 'terse',
    });
    expect(parseCommand('/docs:other', WITH_PROMPTS)).toBeNull();
  });

  it('chooses an MCP prompt at once; Tab completes it unless its name has a space', () => {
    const [summary, commit, odd] = PROMPTS;
    expect(onChoose(summary, 'sum')).toBe('run');
    expect(tabCompletes(summary)).toBe(true);
    expect(tabCompletes(commit)).toBe(true);
    expect(tabCompletes(odd)).toBe(false);
    expect(tabCompletes(BUILTINS[0])).toBe(true);
    expect(completeLine('/docs:s', summary)).toBe('/docs:summary ');
  });

  it('runs a chosen built-in at once; a skill first takes what to do', () => {
    const review = SKILLS[1];
    expect(onChoose(BUILTINS[0], 'n')).toBe('run');
    expect(onChoose(BUILTINS[1], '')).toBe('run');
    expect(onChoose(review, 're')).toBe('complete');
    expect(onChoose(review, 'review')).toBe('run');
    expect(completeLine('/re', review)).toBe('/review ');
    expect(completeLine('/re the diff', review)).toBe('/review the diff');
  });

  it('calls a skill by asking the model to use it', () => {
    expect(skillPrompt('review', 'the last commit')).toBe(
      'Use the `review` skill: the last commit',
    );
    expect(skillPrompt('review', '')).toBe('Use the `review` skill.');
  });

  it('exports as Markdown unless html or jsonl is named', () => {
    expect(exportFormat('')).toBe('markdown');
    expect(exportFormat(' HTML ')).toBe('html');
    expect(exportFormat('jsonl')).toBe('jsonl');
    expect(exportFormat('pdf')).toBeNull();
  });
});
