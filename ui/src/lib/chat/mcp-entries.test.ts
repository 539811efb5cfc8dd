import { describe, expect, it } from 'vitest';
import type { McpPromptArgument, McpResourceView } from '../../ipc/wire';
import { MCP_PROMPTS } from '../../test-ipc';
import {
  argumentHint,
  fillPrompt,
  formArguments,
  initialValues,
  matchResources,
  MAX_RESOURCE_OPTIONS,
  missingArguments,
  problemLines,
  promptArguments,
  promptCommands,
  resourceKey,
  shortLine,
} from './mcp-entries';

function resource(fields: Partial<McpResourceView> & Pick<McpResourceView, 'name'>) {
  return {
    server: 'docs',
    scope: 'user',
    uri: `docs://${fields.name.toLowerCase()}`,
    description: null,
    mime_type: null,
    ...fields,
  } satisfies McpResourceView;
}

const RESOURCES: McpResourceView[] = [
  resource({ name: 'Changelog' }),
  resource({ name: 'API guide', uri: 'docs://reference/api' }),
  resource({ name: 'Guide' }),
  resource({ name: 'Schema', server: 'db', uri: 'postgres://main/guide_table' }),
  resource({ name: 'Tables', server: 'guides', uri: 'x://tables' }),
];

const ARGS: McpPromptArgument[] = [
  { name: 'focus', description: null, required: false },
  { name: 'path', description: 'The file', required: true },
  { name: 'depth', required: false },
];

describe('a server’s words', () => {
  it('are one line, cut with an ellipsis', () => {
    expect(shortLine('  Reads\n\tthe   docs. ')).toBe('Reads the docs.');
    expect(shortLine(null)).toBe('');
    expect(shortLine(undefined)).toBe('');
    expect(shortLine('abcdef', 4)).toBe('abc…');
    expect(shortLine('abcd', 4)).toBe('abcd');
    // By characters, never half a surrogate pair.
    expect(shortLine('😀😀😀😀😀', 3)).toBe('😀😀…');
    expect(shortLine('x'.repeat(500))).toHaveLength(160);
  });
});

describe('the @ menu’s resources', () => {
  it('match by name first, then by server, then by URI, any case', () => {
    expect(matchResources(RESOURCES, 'GUIDE').map((r) => r.name)).toEqual([
      'Guide', // the name starts with it
      'API guide', // the name holds it
      'Tables', // its server's name holds it
      'Schema', // its URI holds it
    ]);
    expect(matchResources(RESOURCES, 'reference').map((r) => r.name)).toEqual(['API guide']);
    expect(matchResources(RESOURCES, 'nothing')).toEqual([]);
  });

  it('are all offered for a bare @, in the servers’ order, each once, capped', () => {
    expect(matchResources(RESOURCES, '')).toEqual(RESOURCES);
    expect(matchResources([...RESOURCES, { ...RESOURCES[0] }], '')).toHaveLength(5);
    // The same URI on another scope is another resource.
    expect(matchResources([RESOURCES[0], { ...RESOURCES[0], scope: 'project' }], '')).toHaveLength(
      2,
    );
    const many = Array.from({ length: 50 }, (_, i) => resource({ name: `R${i}` }));
    expect(matchResources(many, 'r')).toHaveLength(MAX_RESOURCE_OPTIONS);
    expect(matchResources(many, 'r', 3).map((r) => r.name)).toEqual(['R0', 'R1', 'R2']);
  });

  it('are known by scope, server and URI', () => {
    expect(resourceKey(RESOURCES[0])).toBe('user:docs:docs://changelog');
  });
});

describe('the / menu’s prompts', () => {
  it('are `server:prompt` commands by name, their arguments hinted, descriptions one line', () => {
    const commands = promptCommands([
      ...MCP_PROMPTS,
      // The same command from another scope: offered once.
      { ...MCP_PROMPTS[0], scope: 'project' },
      {
        server: 'git',
        scope: 'project',
        name: 'log',
        command: '/git:log',
        description: 'Line one\nline two',
        arguments: [],
      },
    ]);
    expect(commands.map((c) => [c.kind, c.name, c.argument, c.description])).toEqual([
      ['mcp-prompt', 'docs:review', '<path> [focus]', 'Review a file.'],
      ['mcp-prompt', 'docs:summary', null, 'Summarise the project.'],
      ['mcp-prompt', 'git:log', null, 'Line one line two'],
    ]);
    expect(commands[0]).toMatchObject({ whileRunning: true, prompt: MCP_PROMPTS[1] });
  });

  it('hint their arguments, required ones in angle brackets', () => {
    expect(argumentHint([])).toBeNull();
    expect(argumentHint(ARGS)).toBe('[focus] <path> [depth]');
    expect(argumentHint([{ name: 'x'.repeat(100), required: true }])).toHaveLength(60);
  });
});

describe('the prompt’s form', () => {
  it('asks for each argument once', () => {
    expect(formArguments([...ARGS, { name: 'path', required: false }])).toEqual(ARGS);
  });

  it('opens empty, what was typed after the command in the first required field', () => {
    expect(initialValues(ARGS, '')).toEqual(['', '', '']);
    expect(initialValues(ARGS, '  src/main.rs ')).toEqual(['', 'src/main.rs', '']);
    // None required: the first field.
    expect(initialValues([ARGS[0], ARGS[2]], 'errors')).toEqual(['errors', '']);
    expect(initialValues([], 'ignored')).toEqual([]);
  });

  it('refuses blank required arguments', () => {
    expect(missingArguments(ARGS, ['', '', ''])).toEqual(['path']);
    expect(missingArguments(ARGS, ['x', '  \n', ''])).toEqual(['path']);
    expect(missingArguments(ARGS, ['', 'a.rs', ''])).toEqual([]);
    expect(missingArguments(ARGS, [])).toEqual(['path']);
  });

  it('sends the arguments by name, blank optional ones left out', () => {
    expect(promptArguments(ARGS, ['', 'a b.rs ', ''])).toEqual({ path: 'a b.rs ' });
    expect(promptArguments(ARGS, ['errors', 'a.rs', '2'])).toEqual({
      focus: 'errors',
      path: 'a.rs',
      depth: '2',
    });
    // A hostile name is a plain key, never the object's prototype.
    const sent = promptArguments([{ name: '__proto__', required: true }], ['x']);
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
    expect(JSON.stringify(sent)).toBe('{"__proto__":"x"}');
  });
});

describe('the prompt’s text', () => {
  it('replaces the command typed, keeping what was typed after it', () => {
    expect(fillPrompt('/docs:sum', 'Summarise.')).toBe('Summarise.');
    expect(fillPrompt('/docs:review ', 'Review it.\n')).toBe('Review it.\n');
    expect(fillPrompt('/docs:summary and the tests', 'Summarise.\n')).toBe(
      'Summarise.\n\nand the tests',
    );
    // The command gone meanwhile: the text goes first, what is there after it.
    expect(fillPrompt('my notes', 'Summarise.')).toBe('Summarise.\n\nmy notes');
    expect(fillPrompt('', 'Summarise.')).toBe('Summarise.');
  });
});

describe('servers that could not be asked', () => {
  it('are named by what comes before the first ": ", what follows saying why', () => {
    expect(problemLines(['github: connection refused: port 443', 'odd'])).toEqual({
      lines: [
        {
          server: 'github',
          text: 'github did not answer: connection refused: port 443',
          full: 'github did not answer: connection refused: port 443',
        },
        // Not `server: why`: shown as it is, no server named.
        { server: '', text: 'odd', full: 'odd' },
      ],
      more: 0,
      rest: '',
    });
    expect(problemLines([])).toEqual({ lines: [], more: 0, rest: '' });
  });

  it('are one line each, cut with an ellipsis, whole in the title', () => {
    const why = `line one\n${'x'.repeat(300)}`;
    const [line] = problemLines([`docs: ${why}`]).lines;
    expect(line.full).toBe(`docs did not answer: ${why}`);
    expect(Array.from(line.text)).toHaveLength(160);
    expect(line.text.startsWith('docs did not answer: line one x')).toBe(true);
    expect(line.text.endsWith('…')).toBe(true);
  });

  it('are at most three, the others counted', () => {
    const problems = ['a: 1', 'b: 2', 'c: 3', 'd: 4', 'e: 5'];
    const shown = problemLines(problems);
    expect(shown.lines.map((line) => line.server)).toEqual(['a', 'b', 'c']);
    expect(shown.more).toBe(2);
    expect(shown.rest).toBe('d did not answer: 4\ne did not answer: 5');
    expect(problemLines(problems.slice(0, 3)).more).toBe(0);
  });
});
