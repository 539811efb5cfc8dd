// The files panel's toggle, handed from the project window (ProjectView, which holds the panel)
// to the chat header (which draws the toggle beside the tree and review toggles) through Svelte's
// context, so the chat view between them needs no props for it. Outside a project window (a chat
// view on its own, as in its tests) there is none and the header draws no toggle.
import { getContext, hasContext, setContext } from 'svelte';

export interface FilesPanelToggle {
  /** The panel is open. */
  readonly open: boolean;
  toggle(): void;
}

const KEY = Symbol('files-panel');

/** Offers the toggle to the components below (call while the component initialises). */
export function provideFilesPanel(toggle: FilesPanelToggle): void {
  setContext(KEY, toggle);
}

/** The toggle a project window offers, if any (call while the component initialises). */
export function filesPanelToggle(): FilesPanelToggle | null {
  return hasContext(KEY) ? getContext<FilesPanelToggle>(KEY) : null;
}

/** The context a component is mounted with to offer `toggle` (tests mount the header so). */
export function filesPanelContext(toggle: FilesPanelToggle): Map<symbol, FilesPanelToggle> {
  return new Map([[KEY, toggle]]);
}
