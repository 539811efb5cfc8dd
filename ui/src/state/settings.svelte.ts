// Whether the settings view is open, and on which provider's row; any window part can open it
// (the gear buttons, Ctrl/Cmd+, and the model picker's "Set key").
import type { McpStore } from './mcp.svelte';
import type { PermissionStore } from './permissions.svelte';

class SettingsDialog {
  open = $state(false);
  /** The provider whose row gets the focus. */
  focus = $state<string | null>(null);
  /** Bumped when the view closes: keys or endpoints may have changed, pickers reload. */
  version = $state(0);
  /**
   * The window's project permissions, which the view's Permissions section shows: set by the
   * project view while it is open, `null` on the start view.
   */
  permissions = $state.raw<PermissionStore | null>(null);
  /**
   * The window's project MCP servers, which the view's "MCP servers" section shows: set by the
   * project view while it is open, `null` on the start view.
   */
  mcp = $state.raw<McpStore | null>(null);

  show(provider: string | null = null) {
    this.focus = provider;
    this.open = true;
  }

  close() {
    this.open = false;
    this.focus = null;
    this.version += 1;
  }
}

export const settingsDialog = new SettingsDialog();
