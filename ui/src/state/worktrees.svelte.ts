// A project window's worktrees and its sessions' activity as Svelte state, one store per
// project window: `watch` (when the window opens the project) asks Rust to report every live
// session's activity (`watch_sessions`), reads the sessions still running in the background
// and the worktrees; the sidebar reads each session's state and badge from it, and the review
// pane the review of the shown session's worktree. Every call to Rust of the worktrees goes
// through here; what it holds is the pure `reduce` of worktrees.ts.
import * as ipc from '../ipc';
import type {
  ActivityState,
  ArchivePreview,
  SessionActivity,
  SessionListItem,
  SetupOutcome,
  WorktreeCreated,
  WorktreeSetup,
  WorktreeView,
} from '../ipc';
import {
  activityOf,
  badged,
  badges,
  EMPTY_WORKTREES,
  inBackground,
  reduce,
  sameTurn,
  shownWorktree,
  worktreeOf,
  type LastTurnNodes,
  type LastTurnState,
  type ReviewAction,
  type ReviewState,
  type WorktreesAction,
  type WorktreesState,
} from './worktrees';

export class WorktreeStore {
  state = $state.raw<WorktreesState>(EMPTY_WORKTREES);
  /** Bumped when a session of the window ended a run (the session list may have changed). */
  listVersion = $state(0);

  get worktrees(): WorktreeView[] | null {
    return this.state.worktrees;
  }

  get review(): ReviewState {
    return this.state.review;
  }

  /** The review pane's "Last turn" (`null`: none shown). */
  get lastTurn(): LastTurnState | null {
    return this.state.lastTurn;
  }

  /** The worktree the shown session works in (`null`: the project's own folder). */
  get shownWorktree(): string | null {
    return shownWorktree(this.state);
  }

  /** How many sessions wait for the user's answer and are not shown. */
  get badgeCount(): number {
    return badges(this.state).length;
  }

  stateOf(sessionId: string): ActivityState {
    return activityOf(this.state, sessionId);
  }

  badged(sessionId: string): boolean {
    return badged(this.state, sessionId);
  }

  worktreeOf(sessionId: string): string | null {
    return worktreeOf(this.state, sessionId);
  }

  inBackground(sessionId: string): boolean {
    return inBackground(this.state, sessionId);
  }

  #do(action: WorktreesAction): void {
    this.state = reduce(this.state, action);
  }

  /**
   * The window opened the project: its sessions report their activity from now on; those still
   * running in the background and the worktrees are read. Throws an `ArborError`.
   */
  async watch(): Promise<void> {
    await ipc.watchSessions((activity) => this.receive(activity));
    this.#do({ type: 'background', sessions: await ipc.backgroundSessions() });
  }

  /** Reads the project's worktrees. Throws an `ArborError`. */
  async load(): Promise<void> {
    this.#do({ type: 'listed', worktrees: await ipc.listWorktrees() });
  }

  /** One session's activity changed. */
  receive(activity: SessionActivity): void {
    this.#do({ type: 'activity', activity });
    // A run ended (here or in the background): its cost and time changed in the list.
    if (activity.state === 'done' || activity.state === 'error') this.listVersion++;
  }

  /** The sidebar read the stored sessions (their worktrees). */
  knowSessions(sessions: SessionListItem[]): void {
    this.#do({ type: 'sessions', sessions });
  }

  /** The window opened `sessionId` (`null`: a new chat) working in `worktree`. */
  opened(sessionId: string | null, worktree: string | null): void {
    this.#do({ type: 'opened', sessionId, worktree });
  }

  /** The chat shows `sessionId` (a new chat stored, another session switched to). */
  shown(sessionId: string | null): void {
    this.#do({ type: 'shown', sessionId });
  }

  /** Makes a worktree (`null`s: a generated name, the current branch). Throws an `ArborError`. */
  async create(name: string | null, base: string | null): Promise<WorktreeCreated> {
    const created = await ipc.createWorktree(name, base);
    this.#do({ type: 'worktree', worktree: created.worktree });
    return created;
  }

  async approveSetup(hash: string): Promise<WorktreeSetup> {
    return ipc.approveWorktreeSetup(hash);
  }

  /** Runs the approved setup command in `name`, each line of its output to `online`. */
  async runSetup(name: string, online: (line: string) => void): Promise<SetupOutcome> {
    return ipc.runWorktreeSetup(name, online);
  }

  async archivePreview(name: string): Promise<ArchivePreview> {
    return ipc.archivePreview(name);
  }

  async archive(name: string): Promise<void> {
    this.#do({ type: 'worktree', worktree: await ipc.archiveWorktree(name) });
  }

  async restore(name: string): Promise<void> {
    this.#do({ type: 'worktree', worktree: await ipc.restoreWorktree(name) });
  }

  /** Opens the review pane on `name` (or reads its review again). */
  async openReview(name: string): Promise<void> {
    await this.#review(name, 'load', async () => {
      this.#do({ type: 'reviewed', review: await ipc.reviewWorktree(name) });
    });
  }

  /** Reads the review again, if the pane is open and idle (a run of the shown session ended). */
  async refreshReview(): Promise<void> {
    const { name, busy } = this.state.review;
    if (name !== null && busy === null) await this.openReview(name);
  }

  /**
   * The review pane shows the last turn of `nodes` (`null`: no stored user message yet): its
   * files are read when the turn is another than the one shown (a run ended, another session or
   * branch is shown). A turn's two nodes keep their files, so the same turn is not read again.
   */
  async showLastTurn(nodes: LastTurnNodes | null): Promise<void> {
    const shown = this.state.lastTurn;
    if (nodes === null ? shown === null : shown !== null && sameTurn(shown.nodes, nodes)) return;
    this.#do({ type: 'last_turn_start', nodes });
    if (nodes === null) return;
    try {
      const diff = await ipc.diffNodes(nodes.from, nodes.to);
      this.#do({ type: 'last_turn', nodes, diff });
    } catch (raw) {
      const error = ipc.toArborError(raw);
      this.#do({
        type: 'last_turn_failed',
        nodes,
        error: { code: error.code, message: error.message },
      });
    }
  }

  closeReview(): void {
    this.#do({ type: 'review_closed' });
  }

  /** Throws away one uncommitted hunk (its id) or, with `hunk` null, the whole file. */
  async discard(path: string, hunk: string | null): Promise<void> {
    const name = this.state.review.name;
    if (name === null) return;
    await this.#review(name, 'discard', async () => {
      this.#do({ type: 'reviewed', review: await ipc.discardChange(name, path, hunk) });
    });
    void this.#reloadList();
  }

  /** Commits what is not committed; true when it did. */
  async commit(message: string): Promise<boolean> {
    const name = this.state.review.name;
    if (name === null) return false;
    const done = await this.#review(name, 'commit', async () => {
      const result = await ipc.commitWorktree(name, message);
      const review = await ipc.reviewWorktree(name);
      this.#do({ type: 'reviewed', review });
      this.#do({ type: 'committed', name, result });
    });
    void this.#reloadList();
    return done;
  }

  async merge(): Promise<void> {
    const name = this.state.review.name;
    if (name === null) return;
    await this.#review(name, 'merge', async () => {
      const outcome = await ipc.mergeWorktree(name);
      const review = await ipc.reviewWorktree(name);
      this.#do({ type: 'reviewed', review });
      this.#do({ type: 'merged', name, outcome });
    });
    void this.#reloadList();
  }

  async push(): Promise<void> {
    const name = this.state.review.name;
    if (name === null) return;
    await this.#review(name, 'push', async () => {
      this.#do({ type: 'pushed', name, result: await ipc.pushWorktree(name) });
    });
  }

  /** Runs one review action: busy meanwhile, its failure shown in the pane. */
  async #review(name: string, action: ReviewAction, work: () => Promise<void>): Promise<boolean> {
    if (this.state.review.busy !== null && this.state.review.name === name) return false;
    this.#do({ type: 'review_start', name, action });
    try {
      await work();
      return true;
    } catch (raw) {
      const error = ipc.toArborError(raw);
      this.#do({
        type: 'review_failed',
        name,
        error: { action, code: error.code, message: error.message },
      });
      return false;
    }
  }

  /** The list's counts (ahead, uncommitted, size) after a review action; a failure waits. */
  async #reloadList(): Promise<void> {
    try {
      await this.load();
    } catch {
      // The next change reads it again.
    }
  }
}
