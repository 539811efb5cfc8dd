// Plan mode for the window's session: the header's toggle, Shift+Tab in the composer, `/plan`
// and the plan card's "Build" all go through here, so they never disagree. The session's state
// (`SessionState.plan_mode`) is the truth; `sync` takes it when the chat is read again.
import * as ipc from '../ipc';

let on = $state(false);

export const plan = {
  get on(): boolean {
    return on;
  },
  /** Takes the session's own flag (a session opened or read again). */
  sync(value: boolean): void {
    on = value;
  },
  /** Enters or leaves plan mode; answers whether it is on. */
  async set(value: boolean): Promise<boolean> {
    on = await ipc.setPlanMode(value);
    return on;
  },
  toggle(): Promise<boolean> {
    return this.set(!on);
  },
};
