// A project window's MCP servers as Svelte state, one store per project window: the list the
// settings' "MCP servers" section shows (read when the section opens; every command that
// changes a server answers the whole list) and the approval dialog — a project server's
// definition, then its tools —, its state the pure `reduceApproval` of mcp.ts. Every call to
// Rust of the MCP servers goes through here.
import * as ipc from '../ipc';
import type { McpServerConfig, McpServersView, McpServerView } from '../ipc';
import {
  approvalLoading,
  EMPTY_APPROVAL,
  needsDefinitionReview,
  reduceApproval,
  type McpApproval,
  type McpApprovalAction,
  type McpApprovalState,
  type McpTarget,
} from './mcp';

export class McpStore {
  /** `null` until first read. */
  view = $state.raw<McpServersView | null>(null);
  approval = $state.raw<McpApprovalState>(EMPTY_APPROVAL);

  get servers(): McpServerView[] {
    return this.view?.servers ?? [];
  }

  /** What the approval dialog shows (`null`: closed). */
  get shown(): McpApproval | null {
    return this.approval.shown;
  }

  /** The dialog waits for a review (a server's tools: it may be starting). */
  get loading(): boolean {
    return approvalLoading(this.approval);
  }

  /** Reads the project's servers. Throws an `ArborError`. */
  async load(): Promise<void> {
    this.view = await ipc.mcpServers();
  }

  /** Adds (or replaces) one of the user's servers. Throws an `ArborError`. */
  async add(config: McpServerConfig): Promise<void> {
    this.view = await ipc.addMcpServer(config);
  }

  async remove(name: string): Promise<void> {
    this.view = await ipc.removeMcpServer(name);
  }

  async setEnabled(server: McpServerView, enabled: boolean): Promise<void> {
    this.view = await ipc.setMcpServerEnabled(server.scope, server.name, enabled);
  }

  /** Signs in to an HTTP server in the system browser (waits for the user). Throws an
   * `ArborError`. */
  async signIn(server: McpServerView): Promise<void> {
    this.view = await ipc.mcpSignIn(server.scope, server.name);
  }

  log(server: McpServerView): Promise<string[]> {
    return ipc.mcpServerLog(server.scope, server.name);
  }

  setSecret(name: string, value: string): Promise<void> {
    return ipc.setMcpSecret(name, value);
  }

  /**
   * Opens the approval dialog on a server: its definition when it is a project server not
   * approved yet, else its tools (which starts it).
   */
  review(server: McpServerView): void {
    const target = { scope: server.scope, name: server.name };
    this.#do({ type: 'request', kind: needsDefinitionReview(server) ? 'server' : 'tools', target });
  }

  /** Reads what the dialog shows again (after a failure). */
  retry(): void {
    this.#do({ type: 'retry' });
  }

  /**
   * Approves what the dialog shows, exactly as shown (its hash): a definition goes on to its
   * tools' review, tools close the dialog (or show the next server waiting).
   */
  async approve(): Promise<void> {
    const shown = this.shown;
    if (!shown?.review || this.approval.busy) return;
    this.#do({ type: 'approving' });
    const target = shown.target;
    try {
      if (shown.kind === 'server') {
        this.view = await ipc.approveMcpServer(target.name, shown.review.hash);
        this.#do({ type: 'server_approved', target });
      } else {
        this.view = await ipc.approveMcpTools(target.scope, target.name, shown.review.hash);
        this.#do({ type: 'tools_approved', target });
      }
    } catch (raw) {
      this.#fail(target, raw);
    }
  }

  /**
   * Reject or Esc: approves nothing (`from`: only if it is still what the dialog shows — Esc
   * can arrive as a key and as the dialog's cancel). The list is read again (a review may have
   * started the server).
   */
  close(from: McpApproval | null = null): void {
    if (this.approval.busy || (from !== null && this.shown !== from)) return;
    const reviewed = this.shown?.kind === 'tools';
    this.#do({ type: 'close' });
    if (reviewed) {
      this.load().catch(() => {
        // The list keeps what it showed; the next action reads it again.
      });
    }
  }

  #do(action: McpApprovalAction): void {
    const before = this.shown;
    this.approval = reduceApproval(this.approval, action);
    const shown = this.shown;
    // Something new to show: read it.
    if (shown && shown !== before && shown.review === null && this.approval.error === null) {
      void this.#read(shown);
    }
  }

  async #read(shown: McpApproval): Promise<void> {
    const target: McpTarget = shown.target;
    try {
      if (shown.kind === 'server') {
        this.#do({ type: 'server_loaded', review: await ipc.mcpServerReview(target.name) });
      } else {
        this.#do({
          type: 'tools_loaded',
          review: await ipc.mcpToolsReview(target.scope, target.name),
        });
      }
    } catch (raw) {
      this.#fail(target, raw);
    }
  }

  #fail(target: McpTarget, raw: unknown): void {
    const error = ipc.toArborError(raw);
    this.#do({ type: 'failed', target, error: { code: error.code, message: error.message } });
  }
}
