// What MCP servers offer the composer, pure: their resources as the `@` menu lists them (after
// the project's files, ranked by what is typed), their prompts as `/server:prompt` commands, the
// form asking for a prompt's arguments (what is required, what goes to the server) and where the
// prompt's text goes in the composer, and the servers that could not be asked, as the lines under
// the menus say them. Servers' text is hostile: shown as plain text only, each description one
// short line.
import type { McpPromptArgument, McpPromptView, McpResourceView } from '../../ipc/wire';
import type { Command } from './commands';

/** At most this many resources in the `@` menu. */
export const MAX_RESOURCE_OPTIONS = 20;
/** A server's description is cut to this many characters, with an ellipsis. */
export const MAX_DESCRIPTION_CHARS = 160;
/** At most this many servers that could not be asked are named under a menu; the rest counted. */
export const MAX_PROBLEM_LINES = 3;
/** A prompt's argument hint (`<path> [focus]`) is cut to this many characters. */
const MAX_HINT_CHARS = 60;

/** `text` as one line (every run of whitespace, line breaks too, one space), cut to `max`
 * characters with an ellipsis; `''` for none. */
export function shortLine(text: string | null | undefined, max = MAX_DESCRIPTION_CHARS): string {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('')}…`;
}

/** A resource's identity: its server (in its scope) and its URI. */
export function resourceKey(resource: McpResourceView): string {
  return `${resource.scope}:${resource.server}:${resource.uri}`;
}

/** How well `resource` matches `query` (lower case): 0 its name starts with it, 1 its name holds
 * it, 2 its server's name does, 3 its URI does; `null`: no match. */
function resourceRank(resource: McpResourceView, query: string): number | null {
  const name = resource.name.toLowerCase();
  if (name.startsWith(query)) return 0;
  if (name.includes(query)) return 1;
  if (resource.server.toLowerCase().includes(query)) return 2;
  if (resource.uri.toLowerCase().includes(query)) return 3;
  return null;
}

/** The resources whose name, server or URI holds `query` (any case), best first (then in the
 * servers' order), each once, at most `limit`. */
export function matchResources(
  resources: readonly McpResourceView[],
  query: string,
  limit = MAX_RESOURCE_OPTIONS,
): McpResourceView[] {
  const wanted = query.toLowerCase();
  const seen = new Set<string>();
  const ranked: { resource: McpResourceView; rank: number; order: number }[] = [];
  resources.forEach((resource, order) => {
    const key = resourceKey(resource);
    if (seen.has(key)) return;
    seen.add(key);
    const rank = resourceRank(resource, wanted);
    if (rank !== null) ranked.push({ resource, rank, order });
  });
  return ranked
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, limit)
    .map(({ resource }) => resource);
}

/** A prompt's arguments as its hint shows them: `<required> [optional]`. */
export function argumentHint(args: readonly McpPromptArgument[]): string | null {
  if (args.length === 0) return null;
  const hint = args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
  return shortLine(hint, MAX_HINT_CHARS);
}

/** The prompts as `/server:prompt` commands, by name, each name once (the first server's). */
export function promptCommands(prompts: readonly McpPromptView[]): Command[] {
  const seen = new Set<string>();
  const commands: Command[] = [];
  for (const prompt of prompts) {
    const name = prompt.command.startsWith('/')
      ? prompt.command.slice(1)
      : `${prompt.server}:${prompt.name}`;
    if (seen.has(name)) continue;
    seen.add(name);
    commands.push({
      kind: 'mcp-prompt',
      name,
      description: shortLine(prompt.description),
      argument: argumentHint(prompt.arguments),
      whileRunning: true,
      prompt,
    });
  }
  return commands.sort((a, b) => a.name.localeCompare(b.name));
}

/** A prompt's arguments as its form asks for them: each name once (the first). */
export function formArguments(args: readonly McpPromptArgument[]): McpPromptArgument[] {
  const seen = new Set<string>();
  return args.filter((arg) => !seen.has(arg.name) && seen.add(arg.name));
}

/** What the form's fields hold, one per argument of `formArguments` (an array: a server's
 * argument may be named `__proto__`). */
export type PromptValues = string[];

/** The form's fields when it opens: empty, but for what was typed after `/server:prompt`, which
 * goes to the first required argument (the first argument when none is required). */
export function initialValues(args: readonly McpPromptArgument[], typed: string): PromptValues {
  const fields = formArguments(args);
  const first = Math.max(
    0,
    fields.findIndex((arg) => arg.required),
  );
  return fields.map((_, i) => (i === first ? typed.trim() : ''));
}

/** The required arguments left blank (the form refuses to go without them). */
export function missingArguments(
  args: readonly McpPromptArgument[],
  values: PromptValues,
): string[] {
  return formArguments(args)
    .filter((arg, i) => arg.required && (values[i] ?? '').trim() === '')
    .map((arg) => arg.name);
}

/** What `mcp_get_prompt` is sent: the prompt's arguments as typed, by name, optional ones left
 * blank left out. */
export function promptArguments(
  args: readonly McpPromptArgument[],
  values: PromptValues,
): Record<string, string> {
  return Object.fromEntries(
    formArguments(args)
      .map((arg, i): [string, string] => [arg.name, values[i] ?? ''])
      .filter(([, value]) => value.trim() !== ''),
  );
}

/**
 * The composer's text once a prompt's `filled` text arrives: it replaces the `/…` command being
 * typed at the start; anything typed after the command stays, after a blank line.
 */
export function fillPrompt(text: string, filled: string): string {
  const rest = text.replace(/^\s*\/\S*/, '').trim();
  return rest ? `${filled.trimEnd()}\n\n${rest}` : filled;
}

/** A server that could not be asked, as the line under the `@` and `/` menus says it. */
export interface ProblemLine {
  /** The server's name: what comes before the first `: ` of the problem (`''`: none). */
  server: string;
  /** "github did not answer: why", one line, cut with an ellipsis. */
  text: string;
  /** The same, whole (its `title`). */
  full: string;
}

/** The problems `mcp_composer_items` answers (`server: why` each) as the lines under a menu: at
 * most `max`, then how many more and, whole, what they say. */
export function problemLines(
  problems: readonly string[],
  max = MAX_PROBLEM_LINES,
): { lines: ProblemLine[]; more: number; rest: string } {
  const all = problems.map((problem): ProblemLine => {
    const at = problem.indexOf(': ');
    const server = at < 0 ? '' : problem.slice(0, at);
    const full =
      at < 0 ? problem.trim() : `${server} did not answer: ${problem.slice(at + 2).trim()}`;
    return { server, text: shortLine(full), full };
  });
  const rest = all.slice(max);
  return {
    lines: all.slice(0, max),
    more: rest.length,
    rest: rest.map((line) => line.full).join('\n'),
  };
}
