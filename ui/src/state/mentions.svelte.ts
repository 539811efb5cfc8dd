// Files to mention in the composer, asked for from elsewhere in the window (the files panel's
// "Mention in chat"): the composer takes them and attaches each as an `@` mention.

let pending = $state<string[]>([]);

export const mentions = {
  /** Paths asked for and not yet taken by the composer. */
  get pending(): readonly string[] {
    return pending;
  },
  request(path: string): void {
    if (!pending.includes(path)) pending = [...pending, path];
  },
  /** The paths asked for, leaving none. */
  take(): string[] {
    const taken = pending;
    pending = [];
    return taken;
  },
};
