// The tree panel's preview of a turn: hovering or focusing a node for a moment fetches its
// stored message (each node once, until the tree changes) and shows it; the pointer leaving
// hides it unless a node keeps the keyboard focus.
import * as ipc from '../ipc';
import type { BranchEntry } from '../ipc/wire';

export const PREVIEW_DELAY = 150;

export class TreePreview {
  /** The node previewed and its entry (`null`: nothing shown). */
  shown = $state<string | null>(null);
  entry = $state.raw<BranchEntry | null>(null);

  #hover: string | null = null;
  #focus: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // A cache, never read by the UI: no reactivity needed.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #cache = new Map<string, BranchEntry>();
  #nodes = -1;

  /** The tree was read: with another node count, what is cached may be out of date. */
  treeSize(count: number): void {
    if (count === this.#nodes) return;
    this.#nodes = count;
    this.clear();
  }

  /** Forgets every cached entry (a label changed). */
  clear(): void {
    this.#cache.clear();
  }

  hover(id: string | null): void {
    this.#hover = id;
    this.#update();
  }

  focus(id: string | null): void {
    this.#focus = id;
    this.#update();
  }

  /** A node's entry, from the cache or the store. */
  async get(id: string): Promise<BranchEntry> {
    const cached = this.#cache.get(id);
    if (cached) return cached;
    const entry = await ipc.nodePreview(id);
    this.#cache.set(id, entry);
    return entry;
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }

  #update(): void {
    const want = this.#hover ?? this.#focus;
    clearTimeout(this.#timer);
    if (!want) {
      this.shown = null;
      this.entry = null;
      return;
    }
    if (want === this.shown) return;
    this.#timer = setTimeout(() => {
      this.get(want).then(
        (entry) => {
          if ((this.#hover ?? this.#focus) !== want) return;
          this.shown = want;
          this.entry = entry;
        },
        // A preview that cannot be read shows nothing; going there reports the problem.
        () => undefined,
      );
    }, PREVIEW_DELAY);
  }
}
