// What MCP servers offer the composer, as state: their resources and prompts (asked for when a
// menu opens — servers may take seconds to start, so the files do not wait for them —, asked
// again when a menu opens a minute later), and a prompt being filled in (its arguments' form,
// the server asked, its text handed to the composer). Pure parts in `mcp-entries.ts`.
import * as ipc from '../../ipc';
import type { McpPromptView, McpResourceView } from '../../ipc/wire';
import { initialValues, missingArguments, promptArguments, type PromptValues } from './mcp-entries';

/** How long what the servers offer is used before a menu opening asks again. */
export const MCP_REFRESH_MS = 60_000;

/** The usable servers' resources and prompts, as last answered. */
export class McpItems {
  resources = $state.raw<readonly McpResourceView[]>([]);
  prompts = $state.raw<readonly McpPromptView[]>([]);
  /** `server: why` for each server that did not answer. */
  problems = $state.raw<readonly string[]>([]);
  /** The servers are being asked. */
  loading = $state(false);
  #askedAt: number | null = null;

  /** A menu opened: asks the servers unless they were asked less than a minute ago (or are
   * being asked). A failure (no project yet) leaves the menus as they are. */
  want(): void {
    const now = Date.now();
    if (this.loading || (this.#askedAt !== null && now - this.#askedAt < MCP_REFRESH_MS)) return;
    this.#askedAt = now;
    this.loading = true;
    ipc.mcpComposerItems().then(
      (items) => {
        this.resources = items.resources;
        this.prompts = items.prompts;
        this.problems = items.problems;
        this.loading = false;
      },
      () => {
        this.loading = false;
      },
    );
  }
}

/** The prompt whose arguments the form asks for. */
export interface PromptForm {
  prompt: McpPromptView;
  values: PromptValues;
  /** The required arguments the last submit found blank. */
  missing: string[];
}

/** A chosen prompt: its form when it takes arguments, the server asked, its text handed over. */
export class McpPromptRunner {
  form = $state<PromptForm | null>(null);
  /** The command (`/server:prompt`) whose text is being asked for. */
  busy = $state<string | null>(null);
  error = $state<string | null>(null);
  #fill: (text: string) => void;
  #ticket = 0;

  /** `fill` puts a prompt's text in the composer. */
  constructor(fill: (text: string) => void) {
    this.#fill = fill;
  }

  /** `prompt` chosen, with what was typed after it: asked for at once without arguments, else
   * its form opens (what was typed in its first required field). */
  choose(prompt: McpPromptView, typed: string): void {
    this.#ticket++;
    this.busy = null;
    this.error = null;
    if (prompt.arguments.length === 0) {
      this.form = null;
      void this.#get(prompt, {});
    } else {
      this.form = { prompt, values: initialValues(prompt.arguments, typed), missing: [] };
    }
  }

  /** The form sent: refused while a required argument is blank (`false`), else the server is
   * asked for the text. */
  submit(): boolean {
    const form = this.form;
    if (!form || this.busy) return false;
    form.missing = missingArguments(form.prompt.arguments, form.values);
    if (form.missing.length) return false;
    this.error = null;
    void this.#get(form.prompt, promptArguments(form.prompt.arguments, form.values));
    return true;
  }

  /** The form closed (Esc, Cancel) or the message sent: nothing is filled in. */
  cancel(): void {
    this.#ticket++;
    this.form = null;
    this.busy = null;
    this.error = null;
  }

  async #get(prompt: McpPromptView, args: Record<string, string>): Promise<void> {
    const ticket = ++this.#ticket;
    this.busy = prompt.command;
    try {
      const text = await ipc.mcpGetPrompt(prompt.scope, prompt.server, prompt.name, args);
      // Cancelled, or another prompt chosen meanwhile: dropped.
      if (ticket !== this.#ticket) return;
      this.form = null;
      this.busy = null;
      this.#fill(text);
    } catch (raw) {
      if (ticket !== this.#ticket) return;
      this.busy = null;
      this.error = `${prompt.command}: ${ipc.toArborError(raw).message}`;
    }
  }
}
