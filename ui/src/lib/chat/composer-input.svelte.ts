// The composer's message as state, and what its keys and menus do: the text and its selection,
// the notice above it, the attachments, the `@` and `/` menus and what choosing from them means,
// a `/` line run (a built-in, a skill, an MCP prompt — its form or its text), and sending: a
// prompt, or while the agent works a steer or a follow-up. `Composer.svelte` draws it.
// Created while a component initialises (its effects live as long as it does).
import { tick, untrack } from 'svelte';
import * as ipc from '../../ipc';
import type { DocumentAttachment, ImageContent } from '../../ipc/wire';
import { mentions } from '../../state/mentions.svelte';
import { plan } from '../../state/plan.svelte';
import { toSend, transferFiles } from './attachments';
import {
  completeLine,
  onChoose,
  skillPrompt,
  tabCompletes,
  type BuiltinName,
  type Command,
  type CommandLine,
} from './commands';
import { ComposerAttachments } from './composer-attachments.svelte';
import { ComposerMenus } from './composer-menus.svelte';
import { McpPromptRunner } from './mcp-composer.svelte';
import { fillPrompt } from './mcp-entries';
import { appendMention, insertMention } from './mentions';
import { menuKeyAction } from './menu-keys';
import { joinBack } from './queue';

/** What the composer's props give it (read afresh each time). */
export interface ComposerProps {
  running: boolean;
  /** The conversation is being compacted (`/compact`): Stop cancels it, nothing is sent. */
  compacting?: boolean;
  imagesAllowed: boolean;
  modelName: string;
  onsend: (text: string, images: ImageContent[], documents: DocumentAttachment[]) => void;
  onsteer: (text: string) => void;
  onfollowup: (text: string) => void;
  onstop: () => void;
  /** Runs a built-in command (`/plan` excepted: the composer toggles plan mode itself); what
   * it answers is said in the notice, what it throws too. */
  oncommand?: (name: BuiltinName, argument: string) => Promise<string | null> | string | null;
}

/** The line above the message: a status (`info`) or an alert (`error`). */
export interface ComposerNotice {
  text: string;
  tone: 'error' | 'info';
}

export class ComposerInput {
  #props: () => ComposerProps;

  text = $state('');
  notice = $state<ComposerNotice | null>(null);
  /** The message's element (the component binds it). */
  area = $state<HTMLTextAreaElement>();
  /** The text's selection, kept as the user types, clicks and moves. */
  caret = $state(0);
  selectionEnd = $state(0);

  readonly attachments: ComposerAttachments;
  /** `@` mentions and `/` commands. */
  readonly menus: ComposerMenus;
  /** An MCP prompt chosen from the `/` menu: its text replaces the `/…` line, to read and edit. */
  readonly prompts: McpPromptRunner;

  /** The agent runs, or the conversation is being compacted. */
  readonly working = $derived.by(() => this.#props().running || this.#props().compacting === true);
  readonly canSend = $derived.by(() => {
    const { running, compacting } = this.#props();
    if (compacting) return false;
    if (running) return this.text.trim() !== '';
    return !this.attachments.busy && (this.text.trim() !== '' || this.attachments.list.length > 0);
  });

  constructor(props: () => ComposerProps) {
    this.#props = props;
    this.attachments = new ComposerAttachments({
      imagesAllowed: () => this.#props().imagesAllowed,
      modelName: () => this.#props().modelName,
      notify: (message) =>
        (this.notice = message === null ? null : { text: message, tone: 'error' }),
    });
    this.menus = new ComposerMenus(
      () => ({ text: this.text, caret: this.caret, selectionEnd: this.selectionEnd }),
      (message) => this.warn(message),
    );
    this.prompts = new McpPromptRunner((filled) => {
      this.text = fillPrompt(this.text, filled);
      this.notice = null;
      this.placeCaret(this.text.length);
    });

    // A file the window asked to mention (the files panel's "Mention in chat"): `@path` at the end.
    $effect(() => {
      if (mentions.pending.length === 0) return;
      untrack(() => {
        for (const path of mentions.take()) {
          this.text = appendMention(this.text, path);
          void this.attachments.mention(path);
        }
        this.placeCaret(this.text.length);
      });
    });
  }

  focus(): void {
    this.area?.focus();
  }

  /** Puts `value` in the composer (a message to edit and send again) and focuses it. */
  fill(value: string): void {
    this.text = value;
    this.placeCaret(value.length);
  }

  /** Puts messages taken back (a stopped run's queue, a queued message to edit) after what the
   * composer holds, a blank line between each, and focuses it. */
  putBack(texts: readonly string[]): void {
    if (texts.length === 0) return;
    this.text = joinBack(this.text, texts);
    this.placeCaret(this.text.length);
  }

  /** Says something in the composer's notice (`info`: a status; `error`: an alert). */
  say(message: string, tone: 'error' | 'info' = 'info'): void {
    this.notice = { text: message, tone };
  }

  warn(message: string): void {
    this.notice = { text: message, tone: 'error' };
  }

  placeCaret(at: number): void {
    this.caret = at;
    this.selectionEnd = at;
    if (!this.area) return;
    this.area.focus();
    // The text is written to the element on the next update; the caret goes there then.
    void tick().then(() => this.area?.setSelectionRange(at, at));
  }

  syncCaret(): void {
    if (!this.area) return;
    this.caret = this.area.selectionStart;
    this.selectionEnd = this.area.selectionEnd;
  }

  /** Sends `message` as the composer sends typed text: a prompt with the attachments, or while
   * the agent works a steer or (`followup`) a follow-up. Whether it went. */
  #deliver(message: string, mode: 'send' | 'followup'): boolean {
    const { running, imagesAllowed, modelName, onsend, onsteer, onfollowup } = this.#props();
    if (running) {
      if (mode === 'followup') onfollowup(message);
      else onsteer(message);
      return true;
    }
    const { images, documents } = toSend(this.attachments.list);
    if (images.length && !imagesAllowed) {
      this.warn(`${modelName} does not take images: remove them, or pick a model that does.`);
      return false;
    }
    onsend(message, images, documents);
    this.attachments.clear();
    return true;
  }

  #clearText(): void {
    this.text = '';
    this.caret = 0;
    this.selectionEnd = 0;
    this.menus.mentions.dismissed = null;
    this.prompts.cancel();
  }

  /** Enter (`send`) or Alt+Enter (`followup`), or the Send button: a known `/` line runs, else
   * the text goes. */
  submit(mode: 'send' | 'followup'): void {
    const line = this.menus.commands.line;
    if (line) {
      void this.#runCommand(line, mode);
      return;
    }
    if (!this.canSend) return;
    if (!this.#deliver(this.text.trim(), mode)) return;
    this.#clearText();
    this.notice = null;
  }

  async #runCommand({ command, argument }: CommandLine, mode: 'send' | 'followup') {
    if (command.kind === 'mcp-prompt') {
      this.#choosePrompt(command, argument);
      return;
    }
    const { running, compacting, oncommand } = this.#props();
    if (command.kind === 'skill') {
      if (compacting || (!running && this.attachments.busy)) return;
      if (this.#deliver(skillPrompt(command.name, argument), mode)) {
        this.#clearText();
        this.notice = null;
      }
      return;
    }
    if (this.working && !command.whileRunning) {
      this.warn(`/${command.name} waits until the agent is done: let it finish, or stop it.`);
      return;
    }
    this.#clearText();
    this.notice = null;
    try {
      const said =
        command.name === 'plan'
          ? await this.#togglePlan()
          : await oncommand?.(command.name, argument);
      if (said) this.say(said);
    } catch (raw) {
      this.warn(ipc.toArborError(raw).message);
    }
  }

  async #togglePlan(): Promise<string> {
    const on = await plan.toggle();
    return on
      ? 'Plan mode is on: the agent explores and proposes a plan, and changes no files.'
      : 'Plan mode is off: the agent can change files again.';
  }

  /** An MCP prompt chosen: with arguments the line becomes `/server:prompt ` (what followed it
   * goes to the form), then its form or its text. */
  #choosePrompt(chosen: Extract<Command, { kind: 'mcp-prompt' }>, argument: string): void {
    this.notice = null;
    // The menu closes while the server is asked (it may take seconds).
    this.menus.commands.dismissed = true;
    if (chosen.prompt.arguments.length) {
      this.text = `/${chosen.name} `;
      this.caret = this.selectionEnd = this.text.length;
    }
    this.prompts.choose(chosen.prompt, argument);
  }

  /** The `/` menu's option `index` chosen by Enter or a click, or by Tab. */
  chooseCommand(index: number, how: 'enter' | 'tab'): void {
    const chosen = this.menus.commands.matches[index];
    if (!chosen) return;
    if (
      (how === 'tab' && tabCompletes(chosen)) ||
      onChoose(chosen, this.menus.commands.typed ?? '') === 'complete'
    ) {
      this.text = completeLine(this.text, chosen);
      this.placeCaret(chosen.name.length + 2);
      return;
    }
    const argument = this.text.replace(/^\/\S*/, '').trim();
    void this.#runCommand({ command: chosen, argument }, 'send');
  }

  /** A file chosen from the `@` menu: `@path ` in the text, the file attached; an MCP resource:
   * `@uri ` in the text, the resource attached. */
  chooseMention(index: number): void {
    const mention = this.menus.mentions;
    const option = mention.options[index];
    if (!option || !mention.at) return;
    const inserted = option.kind === 'file' ? option.match.path : option.resource.uri;
    const next = insertMention(this.text, mention.at, inserted);
    this.text = next.text;
    this.placeCaret(next.caret);
    if (option.kind === 'file') void this.attachments.mention(option.match.path);
    else void this.attachments.mentionResource(option.resource);
  }

  /** Keys of an open menu: arrows move, Enter and Tab choose, Esc closes. Whether it took it. */
  #menuKey(event: KeyboardEvent): boolean {
    const menu = this.menus.open;
    if (!menu) return false;
    const action = menuKeyAction(event.key, event.shiftKey);
    if (!action) return false;
    if (action.kind === 'move') {
      this.menus.move(action.step);
    } else if (action.kind === 'choose') {
      if (menu === 'command') this.chooseCommand(this.menus.commands.active, action.how);
      else this.chooseMention(this.menus.mentions.active);
    } else {
      // The menu closes; the run (if any) goes on.
      event.stopPropagation();
      this.menus.dismiss();
    }
    event.preventDefault();
    return true;
  }

  /** The message's keys: Shift+Tab plan mode, an open menu's keys, Enter sends (Alt+Enter
   * queues a follow-up), Esc stops the run. */
  keydown(event: KeyboardEvent): void {
    // IME composition: WebKit sends Enter (keyCode 229) before compositionend.
    if (event.isComposing || event.keyCode === 229) return;
    if (
      event.key === 'Tab' &&
      event.shiftKey &&
      !event.ctrlKey &&
      !event.altKey &&
      !event.metaKey
    ) {
      // Plan mode on or off; the focus stays in the message.
      event.preventDefault();
      this.#togglePlan().then(
        (said) => this.say(said),
        (raw) => this.warn(ipc.toArborError(raw).message),
      );
      return;
    }
    if (this.#menuKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      this.submit(event.altKey ? 'followup' : 'send');
    } else if (event.key === 'Escape' && this.working) {
      event.preventDefault();
      this.#props().onstop();
    }
  }

  /** Pasted or dropped files are attached; anything else goes on as usual. */
  transfer(event: Event, data: DataTransfer | null): void {
    const files = transferFiles(data);
    if (files.length) {
      event.preventDefault();
      void this.attachments.add(files);
    }
  }
}
