// The tools the model proposes, waiting for the user: a queue of proposals shown one at a time
// by the approval dialog, and the small rules the dialog and the tools panel share. Pure (no
// Svelte, no IPC), so every rule is unit-tested (approvals.test.ts); approvals.svelte.ts feeds it.
import type { SessionEvent, ToolEntry, ToolFileChange, ToolReview } from '../ipc/wire';

export type ApprovalEvent = Extract<SessionEvent, { type: 'approval_requested' }>;

/** The file every tool folder has: its manifest and instructions. */
export const SKILL_FILE = 'SKILL.md';

/** What the dialog shows for one pending tool. */
export interface Proposal {
  approvalId: string;
  /** `create_tool` (a new tool) or `edit_tool` (a change to an approved one). */
  kind: string;
  name: string;
  reason: string;
  skillMd: string;
  files: Record<string, string>;
  allowedTools: string[];
  /** The helpers in plain words; `null` until the review is read (an event has only names). */
  permissions: string[] | null;
  /** The approved version's files, for a change. */
  previous: Record<string, string> | null;
  /** Each changed file's patch; `null` until the review is read. */
  changes: ToolFileChange[] | null;
  /** Reading the review failed (the proposal is still shown from the event). */
  loadError: { code: string; message: string } | null;
}

export interface ApprovalQueue {
  /** The first one is shown; the rest wait. */
  items: Proposal[];
}

export const EMPTY_QUEUE: ApprovalQueue = { items: [] };

export function proposalOfEvent(event: ApprovalEvent): Proposal {
  return {
    approvalId: event.approval_id,
    kind: event.kind,
    name: event.name,
    reason: event.reason,
    skillMd: event.skill_md,
    files: event.files,
    allowedTools: event.allowed_tools,
    permissions: null,
    previous: event.previous ?? null,
    changes: null,
    loadError: null,
  };
}

export function proposalOfReview(review: ToolReview): Proposal {
  return {
    approvalId: review.approval_id,
    kind: review.kind,
    name: review.name,
    reason: review.reason,
    skillMd: review.skill_md,
    files: review.files,
    allowedTools: review.allowed_tools,
    permissions: review.permissions,
    previous: review.previous,
    changes: review.changes,
    // Answered elsewhere (the CLI, another window) since it was proposed.
    loadError:
      review.status === 'pending'
        ? null
        : { code: 'not_pending', message: `This tool was already ${review.status}.` },
  };
}

function indexOf(queue: ApprovalQueue, approvalId: string): number {
  return queue.items.findIndex((item) => item.approvalId === approvalId);
}

/** The queue with `proposal` waiting last; one already queued is updated where it is. */
export function enqueue(queue: ApprovalQueue, proposal: Proposal): ApprovalQueue {
  const at = indexOf(queue, proposal.approvalId);
  if (at < 0) return { items: [...queue.items, proposal] };
  const items = queue.items.slice();
  items[at] = { ...items[at], ...proposal };
  return { items };
}

/** The queue with `proposal` shown next (the user asked for it: the tools panel's Review). */
export function putFirst(queue: ApprovalQueue, proposal: Proposal): ApprovalQueue {
  const rest = queue.items.filter((item) => item.approvalId !== proposal.approvalId);
  return { items: [proposal, ...rest] };
}

/** The queue with a proposal's review (permissions in words, patches) filled in. */
export function withReview(queue: ApprovalQueue, review: ToolReview): ApprovalQueue {
  const at = indexOf(queue, review.approval_id);
  if (at < 0) return queue;
  const items = queue.items.slice();
  items[at] = proposalOfReview(review);
  return { items };
}

/** The queue with why a proposal's review could not be read. */
export function withLoadError(
  queue: ApprovalQueue,
  approvalId: string,
  error: { code: string; message: string },
): ApprovalQueue {
  const at = indexOf(queue, approvalId);
  if (at < 0) return queue;
  const items = queue.items.slice();
  items[at] = { ...items[at], loadError: { code: error.code, message: error.message } };
  return { items };
}

/** The queue without `approvalId` (decided, or closed to decide later). */
export function remove(queue: ApprovalQueue, approvalId: string): ApprovalQueue {
  const at = indexOf(queue, approvalId);
  if (at < 0) return queue;
  return { items: queue.items.filter((_, i) => i !== at) };
}

export function current(queue: ApprovalQueue): Proposal | null {
  return queue.items[0] ?? null;
}

/** "new tool" or "change to an approved tool". */
export function kindLabel(kind: string): string {
  return kind === 'edit_tool' ? 'Change to an approved tool' : 'New tool';
}

/** The permissions as a list of sentences; none means the tool cannot touch files. */
export function permissionLines(permissions: string[]): string[] {
  return permissions.length > 0 ? permissions : ['cannot touch files'];
}

/** A file's paths in the order to show them: SKILL.md first, then by path. */
export function orderedPaths(files: Record<string, string>): string[] {
  return Object.keys(files).sort((a, b) => {
    if (a === SKILL_FILE) return -1;
    if (b === SKILL_FILE) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** The language a file's name suggests, for highlighting (its extension; unknown: plain). */
export function languageOfPath(path: string): string | undefined {
  const name = path.split('/').pop() ?? path;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return name.slice(dot + 1).toLowerCase();
}

/** A SKILL.md split into its YAML front matter (without the fences) and its Markdown body. */
export function splitFrontMatter(text: string): { frontMatter: string | null; body: string } {
  const normalized = text.replace(/^\uFEFF/, '');
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(normalized);
  if (!match) return { frontMatter: null, body: normalized };
  return { frontMatter: match[1], body: normalized.slice(match[0].length) };
}

export const STATUS_LABEL: Record<ToolEntry['status'], string> = {
  builtin: 'built-in',
  approved: 'approved',
  pending: 'pending',
  invalid: 'invalid',
};

/** The tools panel's order: pending first (they wait on the user), then invalid, approved,
 * built-in; by name within each. */
export function orderedTools(tools: ToolEntry[]): ToolEntry[] {
  const rank: Record<ToolEntry['status'], number> = {
    pending: 0,
    invalid: 1,
    approved: 2,
    builtin: 3,
  };
  return tools
    .slice()
    .sort((a, b) => rank[a.status] - rank[b.status] || (a.name < b.name ? -1 : 1));
}

/** A run's duration as people read it: 850 ms, 1.2 s, 2 min 5 s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A run's arguments (JSON text) on one line, or the text as it is when it is not JSON. */
export function argumentsText(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json));
  } catch {
    return json;
  }
}
