// The composer's suggestion menus as state: the `@` file finder (what follows the `@` at the
// caret, searched with `find_files` once typing settles, only the latest answer shown; then MCP
// servers' resources matching it) and the `/` command menu (built-ins and the instruction-only
// skills, read each time it opens; then MCP servers' prompts), which of the two is open, its
// active option, and closing one with Esc or by leaving the message. What MCP servers offer is
// asked for when either menu opens, and shown once it arrives (`McpItems`).
// Created while a component initialises (their effects live as long as it does).
import { untrack } from 'svelte';
import * as ipc from '../../ipc';
import type { FileMatch, McpResourceView } from '../../ipc/wire';
import {
  BUILTINS,
  commandQuery,
  matchCommands,
  parseCommand,
  skillCommands,
  type Command,
} from './commands';
import { McpItems } from './mcp-composer.svelte';
import { matchResources, promptCommands } from './mcp-entries';
import { mentionAt, moveActive } from './mentions';
import { commandActiveIndex, menuIds, type MenuKind } from './menu-keys';

/** How long typing after `@` settles before the project's files are searched. */
export const FIND_DELAY_MS = 60;

/** The composer's text and its selection, as the menus read them. */
export interface ComposerSelection {
  text: string;
  caret: number;
  selectionEnd: number;
}

/** An option of the `@` menu: a project file, or an MCP server's resource. */
export type MentionOption =
  { kind: 'file'; match: FileMatch } | { kind: 'mcp-resource'; resource: McpResourceView };

/** The `@` file finder. */
export class MentionFinder {
  #source: () => ComposerSelection;
  #mcp: McpItems;
  #ticket = 0;

  /** The mention the caret is in. */
  readonly at = $derived.by(() => {
    const { text, caret, selectionEnd } = this.#source();
    return mentionAt(text, caret, selectionEnd);
  });
  /** Where the `@` the user closed the finder on (Esc) is: it stays closed for that one. */
  dismissed = $state<number | null>(null);
  /** What is searched for (`null`: no mention, or one closed). */
  readonly query = $derived(this.at && this.at.start !== this.dismissed ? this.at.query : null);
  matches = $state.raw<FileMatch[]>([]);
  /** The query the shown matches answer (they stay shown while a newer one is searched). */
  answered = $state<string | null>(null);
  /** MCP servers' resources matching the query, once the files have answered for this mention
   * (the files come first and the list does not jump as they arrive). */
  readonly resources = $derived.by(() =>
    this.query === null || this.answered === null
      ? []
      : matchResources(this.#mcp.resources, this.query),
  );
  /** The menu's options: the files, then the resources. */
  readonly options = $derived<MentionOption[]>([
    ...this.matches.map((match): MentionOption => ({ kind: 'file', match })),
    ...this.resources.map((resource): MentionOption => ({ kind: 'mcp-resource', resource })),
  ]);
  active = $derived(this.options.length ? 0 : -1);
  readonly open = $derived(this.query !== null && this.options.length > 0);
  readonly empty = $derived(
    this.query !== null && this.answered === this.query && this.options.length === 0,
  );
  /** A newer query than the shown matches answer is being searched. */
  readonly searching = $derived(this.answered !== this.query);

  constructor(source: () => ComposerSelection, warn: (message: string) => void, mcp: McpItems) {
    this.#source = source;
    this.#mcp = mcp;

    // Out of the mention the finder was closed on: the next `@` opens it again.
    $effect(() => {
      if (this.at === null) untrack(() => (this.dismissed = null));
    });

    $effect(() => {
      const query = this.query;
      const ticket = ++this.#ticket;
      if (query === null) {
        untrack(() => {
          this.matches = [];
          this.answered = null;
        });
        return;
      }
      const timer = setTimeout(() => {
        ipc.findFiles(query, 50).then(
          (found) => {
            // An answer to an older query, overtaken by typing: dropped.
            if (ticket !== this.#ticket) return;
            this.matches = found;
            this.answered = query;
          },
          (raw) => {
            if (ticket !== this.#ticket) return;
            this.matches = [];
            this.answered = query;
            warn(ipc.toArborError(raw).message);
          },
        );
      }, FIND_DELAY_MS);
      return () => clearTimeout(timer);
    });
  }

  /** Closes the finder on the mention the caret is in. */
  dismiss(): void {
    this.dismissed = this.at?.start ?? null;
  }
}

/** The `/` command menu. */
export class CommandFinder {
  #source: () => ComposerSelection;
  #mcp: McpItems;

  /** What follows the `/` being typed (`null`: the text is not a command being typed). */
  readonly typed = $derived.by(() => {
    const { text, caret, selectionEnd } = this.#source();
    return commandQuery(text, caret, selectionEnd);
  });
  dismissed = $state(false);
  skills = $state.raw<Command[]>([]);
  readonly all = $derived.by(() => [
    ...BUILTINS,
    ...this.skills,
    ...promptCommands(this.#mcp.prompts),
  ]);
  readonly matches = $derived(this.typed === null ? [] : matchCommands(this.all, this.typed));
  active = $derived(commandActiveIndex(this.matches, this.typed));
  readonly open = $derived(!this.dismissed && this.matches.length > 0);
  /** The text is a known command (Enter runs it instead of sending it). */
  readonly line = $derived.by(() => parseCommand(this.#source().text, this.all));

  constructor(source: () => ComposerSelection, mcp: McpItems) {
    this.#source = source;
    this.#mcp = mcp;

    // The skills are read each time the menu opens (one may have been approved meanwhile).
    $effect(() => {
      if (this.typed === null) {
        this.dismissed = false;
        return;
      }
      let current = true;
      ipc.listTools().then(
        (list) => {
          if (current) this.skills = skillCommands(list.tools);
        },
        () => {
          // No session yet, or the store is busy: the built-ins are there all the same.
        },
      );
      return () => {
        current = false;
      };
    });
  }
}

/** Both menus over the composer; the command menu wins when both could open. */
export class ComposerMenus {
  readonly mentions: MentionFinder;
  readonly commands: CommandFinder;
  /** What MCP servers offer both menus. */
  readonly mcp = new McpItems();

  // Read lazily, once the constructor has made both menus.
  readonly open = $derived.by((): MenuKind | null =>
    this.commands.open ? 'command' : this.mentions.open ? 'mention' : null,
  );
  /** The ids the textarea's `aria-controls` and `aria-activedescendant` name. */
  readonly ids = $derived.by(() =>
    menuIds(this.open, this.open === 'command' ? this.commands.active : this.mentions.active),
  );

  constructor(source: () => ComposerSelection, warn: (message: string) => void) {
    this.mentions = new MentionFinder(source, warn, this.mcp);
    this.commands = new CommandFinder(source, this.mcp);

    // A menu opening asks the MCP servers (at most once a minute); its files or commands do not
    // wait for them.
    $effect(() => {
      if (this.mentions.query !== null || this.commands.typed !== null) {
        untrack(() => this.mcp.want());
      }
    });
  }

  /** Moves the open menu's active option `step` (±1), wrapping. */
  move(step: number): void {
    if (this.open === 'command') {
      this.commands.active = moveActive(this.commands.active, step, this.commands.matches.length);
    } else if (this.open === 'mention') {
      this.mentions.active = moveActive(this.mentions.active, step, this.mentions.options.length);
    }
  }

  /** Esc: the open menu closes (the run, if any, goes on). */
  dismiss(): void {
    if (this.open === 'command') this.commands.dismissed = true;
    else this.mentions.dismiss();
  }

  /** The message lost the focus: both close (a click on an option keeps it). */
  blur(): void {
    this.commands.dismissed = true;
    this.mentions.dismiss();
  }

  /** The message has the focus again: both may open. */
  focus(): void {
    this.commands.dismissed = false;
    this.mentions.dismissed = null;
  }
}
