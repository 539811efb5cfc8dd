// The chat's view model and the pure reducer that builds it: from a `SessionView` (what is
// stored) and from the session's event stream (what is happening). No Svelte here, so every
// rule is unit-tested against recorded streams (chat.test.ts).
//
// Items are immutable: a change replaces the one item it touches (and the array holding it),
// so keyed components of untouched messages never re-render while a message streams.
import type {
  AgentMessage,
  AssistantContent,
  AssistantMessage,
  BranchEntry,
  BranchPage,
  ImageContent,
  JsonValue,
  LlmError,
  SessionEvent,
  SessionState,
  SessionView,
  ToolResult,
  UserContent,
} from '../ipc/wire';

export type MessageStatus = 'streaming' | 'done' | 'aborted' | 'error';
export type ToolStatus = 'running' | 'done' | 'error';

interface ItemBase {
  /** Stable across the item's life (also once it is stored), for keyed rendering. */
  key: string;
  /** The stored node, once `node_appended` has named it. */
  nodeId: string | null;
  /** The node and its siblings (oldest first), for the `‹ 2/3 ›` switcher. */
  siblings: string[];
}

export interface UserItem extends ItemBase {
  kind: 'user';
  text: string;
  images: ImageContent[];
}

export interface AssistantItem extends ItemBase {
  kind: 'assistant';
  content: AssistantContent[];
  status: MessageStatus;
  errorMessage: string | null;
  model: string;
}

export interface CompactionItem extends ItemBase {
  kind: 'compaction';
  summary: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
}

export interface SummaryItem extends ItemBase {
  kind: 'branch_summary';
  summary: string;
}

export type ChatItem = UserItem | AssistantItem | CompactionItem | SummaryItem;

/** A tool call as its card shows it. */
export interface ToolView {
  id: string;
  name: string;
  status: ToolStatus;
  /** Live output while it runs (bash), newest last, capped at `MAX_LIVE_OUTPUT`. */
  output: string;
  result: ToolResult | null;
}

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  /** `Date.now()` when the notice arrived, for the countdown. */
  since: number;
  message: string;
}

/** Files could not be recorded for some steps (their messages were stored): not a run error,
 * nothing stops; restoring files to those steps is not possible. */
export interface SnapshotNotice {
  /** How many steps failed since the notice showed. */
  count: number;
  /** The last failure's message. */
  message: string;
}

export interface RunError {
  kind: LlmError['kind'];
  message: string;
}

export interface ChatModel {
  sessionId: string | null;
  title: string | null;
  items: ChatItem[];
  /** Tool calls by call id: the cards of the assistant messages read them. */
  tools: Record<string, ToolView>;
  state: SessionState;
  running: boolean;
  compacting: boolean;
  retry: RetryNotice | null;
  runError: RunError | null;
  snapshotNotice: SnapshotNotice | null;
  /** The item whose `node_appended` comes next (it follows its `message_end`). */
  awaitingNode: string | null;
  nextKey: number;
  /** Entries of the branch before `items` that the window has not read (see `prependPage`). */
  earlier: number;
}

/** Live tool output kept for display; the full result arrives with `tool_execution_end`. */
export const MAX_LIVE_OUTPUT = 200_000;

export function textOf(content: UserContent[]): string {
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

export function imagesOf(content: UserContent[]): ImageContent[] {
  return content
    .filter((part) => part.type === 'image')
    .map((part) => ({ data: part.data, mime_type: part.mime_type }));
}

function statusOf(message: AssistantMessage): MessageStatus {
  if (message.stop_reason === 'aborted') return 'aborted';
  if (message.stop_reason === 'error') return 'error';
  return 'done';
}

function assistantItem(base: ItemBase, message: AssistantMessage, status?: MessageStatus) {
  return {
    ...base,
    kind: 'assistant',
    content: message.content,
    status: status ?? statusOf(message),
    errorMessage: message.error_message ?? null,
    model: message.model,
  } satisfies AssistantItem;
}

function toolFromResult(
  id: string,
  name: string,
  isError: boolean,
  result: ToolResult,
  previous?: ToolView,
): ToolView {
  return { id, name, status: isError ? 'error' : 'done', output: previous?.output ?? '', result };
}

/** Builds the model from a stored branch, reusing the keys (and objects) of `previous`. */
export function fromView(view: SessionView, previous?: ChatModel): ChatModel {
  const byNode = new Map<string, ChatItem>();
  for (const item of previous?.items ?? []) {
    if (item.nodeId) byNode.set(item.nodeId, item);
  }
  const nextKey = previous?.nextKey ?? 0;
  const items: ChatItem[] = [];
  const tools: Record<string, ToolView> = {};
  for (const entry of view.entries) {
    const old = byNode.get(entry.node_id);
    const base: ItemBase = {
      key: old?.key ?? `n-${entry.node_id}`,
      nodeId: entry.node_id,
      siblings: entry.sibling_ids,
    };
    const item = itemOfEntry(entry, base, tools);
    if (!item) continue;
    // Unchanged stored items keep their identity, so their components do not re-render.
    items.push(old && sameItem(old, item) ? old : item);
  }
  // A view carries the tail of a long branch: earlier items read before on the same branch stay.
  let earlier = view.earlier;
  const first = view.entries[0]?.node_id;
  const at = first && previous?.sessionId === view.session_id ? indexOfNode(previous, first) : -1;
  if (at > 0 && previous) {
    items.unshift(...previous.items.slice(0, at));
    earlier = previous.earlier;
    for (const [id, tool] of Object.entries(previous.tools)) tools[id] ??= tool;
  }
  return {
    sessionId: view.session_id,
    title: view.title,
    items,
    tools,
    state: view.state,
    running: view.state.is_streaming,
    compacting: false,
    retry: null,
    runError: previous?.running === false ? previous.runError : null,
    snapshotNotice: previous?.sessionId === view.session_id ? previous.snapshotNotice : null,
    awaitingNode: null,
    nextKey,
    earlier,
  };
}

function indexOfNode(model: ChatModel, nodeId: string): number {
  return model.items.findIndex((item) => item.nodeId === nodeId);
}

/** `model` with a page of earlier entries of its branch put before its items. */
export function prependPage(model: ChatModel, page: BranchPage): ChatModel {
  const head = fromView({
    session_id: model.sessionId,
    title: model.title,
    entries: page.entries,
    earlier: page.earlier,
    state: model.state,
  });
  return {
    ...model,
    items: [...head.items, ...model.items],
    tools: { ...head.tools, ...model.tools },
    earlier: page.earlier,
  };
}

function itemOfEntry(
  entry: BranchEntry,
  base: ItemBase,
  tools: Record<string, ToolView>,
): ChatItem | null {
  const message = entry.message;
  switch (entry.kind) {
    case 'compaction':
      return {
        ...base,
        kind: 'compaction',
        summary: entry.summary,
        tokensBefore: entry.tokens_before,
        tokensAfter: null,
      };
    case 'branch_summary':
      return { ...base, kind: 'branch_summary', summary: entry.summary ?? '' };
    default:
      break;
  }
  if (!message) return null;
  if (message.role === 'user') {
    return {
      ...base,
      kind: 'user',
      text: textOf(message.content),
      images: imagesOf(message.content),
    };
  }
  if (message.role === 'assistant') {
    const item = assistantItem(base, message, entry.aborted ? 'aborted' : undefined);
    for (const part of message.content) {
      if (part.type === 'tool_call' && !tools[part.id]) {
        // Until its result is seen: a call the run never finished.
        tools[part.id] = {
          id: part.id,
          name: part.name,
          status: 'error',
          output: '',
          result: null,
        };
      }
    }
    return item;
  }
  if (message.role === 'tool_result') {
    tools[message.tool_call_id] = toolFromResult(
      message.tool_call_id,
      message.tool_name,
      message.is_error,
      { content: message.content, details: message.details ?? null },
    );
  }
  return null;
}

function sameItem(a: ChatItem, b: ChatItem): boolean {
  if (a.kind !== b.kind || a.nodeId !== b.nodeId) return false;
  if (a.siblings.join() !== b.siblings.join()) return false;
  if (a.kind === 'assistant' && b.kind === 'assistant') {
    return a.status === b.status && a.content.length === b.content.length;
  }
  return true;
}

function newKey(model: ChatModel): [string, number] {
  return [`k-${model.nextKey}`, model.nextKey + 1];
}

function replaceItem(model: ChatModel, key: string, change: (item: ChatItem) => ChatItem) {
  // The changing item is nearly always the last one: search from the end.
  for (let i = model.items.length - 1; i >= 0; i--) {
    if (model.items[i].key === key) {
      const items = model.items.slice();
      items[i] = change(items[i]);
      return items;
    }
  }
  return model.items;
}

function lastStreaming(model: ChatModel): AssistantItem | null {
  const last = model.items[model.items.length - 1];
  return last?.kind === 'assistant' && last.status === 'streaming' ? last : null;
}

function putBlock(content: AssistantContent[], index: number, block: AssistantContent) {
  const next = content.slice();
  while (next.length < index) next.push({ type: 'text', text: '' });
  next[index] = block;
  return next;
}

/** The streamed message after one delta (mirrors `AssistantMessage::apply_event` in Rust). */
export function applyDelta(
  content: AssistantContent[],
  delta: Extract<SessionEvent, { type: 'message_update' }>['delta'],
): AssistantContent[] {
  switch (delta.type) {
    case 'start':
    case 'done':
    case 'error':
      return delta.message.content;
    case 'text_start':
      return putBlock(content, delta.content_index, { type: 'text', text: '' });
    case 'thinking_start':
      return putBlock(content, delta.content_index, { type: 'thinking', thinking: '' });
    case 'tool_call_start':
      return putBlock(content, delta.content_index, {
        type: 'tool_call',
        id: delta.id,
        name: delta.name,
        arguments: {},
      });
    case 'text_delta': {
      const part = content[delta.content_index];
      if (part?.type !== 'text') return content;
      return putBlock(content, delta.content_index, { ...part, text: part.text + delta.delta });
    }
    case 'thinking_delta': {
      const part = content[delta.content_index];
      if (part?.type !== 'thinking') return content;
      return putBlock(content, delta.content_index, {
        ...part,
        thinking: part.thinking + delta.delta,
      });
    }
    case 'tool_call_delta': {
      const part = content[delta.content_index];
      if (part?.type !== 'tool_call') return content;
      return putBlock(content, delta.content_index, { ...part, arguments: delta.arguments });
    }
    case 'text_end':
      return putBlock(content, delta.content_index, { type: 'text', ...delta.text });
    case 'thinking_end':
      return putBlock(content, delta.content_index, { type: 'thinking', ...delta.thinking });
    case 'tool_call_end':
      return putBlock(content, delta.content_index, { type: 'tool_call', ...delta.tool_call });
  }
}

function startMessage(model: ChatModel, message: AgentMessage): ChatModel {
  const [key, nextKey] = newKey(model);
  const base: ItemBase = { key, nodeId: null, siblings: [] };
  if (message.role === 'user') {
    const item: UserItem = {
      ...base,
      kind: 'user',
      text: textOf(message.content),
      images: imagesOf(message.content),
    };
    return { ...model, items: [...model.items, item], nextKey, retry: null };
  }
  if (message.role === 'assistant') {
    const item = assistantItem(base, message, 'streaming');
    return { ...model, items: [...model.items, item], nextKey, retry: null };
  }
  return model;
}

function endMessage(model: ChatModel, message: AgentMessage): ChatModel {
  if (message.role === 'assistant') {
    const streaming = lastStreaming(model);
    if (!streaming) return model;
    const items = replaceItem(model, streaming.key, (item) => assistantItem(item, message));
    let tools = model.tools;
    for (const part of message.content) {
      if (part.type === 'tool_call' && !tools[part.id]) {
        tools = {
          ...tools,
          [part.id]: { id: part.id, name: part.name, status: 'running', output: '', result: null },
        };
      }
    }
    return { ...model, items, tools, awaitingNode: streaming.key };
  }
  if (message.role === 'user') {
    const last = model.items[model.items.length - 1];
    return { ...model, awaitingNode: last?.kind === 'user' ? last.key : null };
  }
  if (message.role === 'tool_result') {
    const previous = model.tools[message.tool_call_id];
    const tool = toolFromResult(
      message.tool_call_id,
      message.tool_name,
      message.is_error,
      { content: message.content, details: message.details ?? null },
      previous,
    );
    return { ...model, tools: { ...model.tools, [tool.id]: tool }, awaitingNode: null };
  }
  return { ...model, awaitingNode: null };
}

function updateTool(model: ChatModel, id: string, change: (tool: ToolView) => ToolView): ChatModel {
  const tool = model.tools[id];
  if (!tool) return model;
  return { ...model, tools: { ...model.tools, [id]: change(tool) } };
}

function appendOutput(output: string, chunk: string): string {
  const joined = output + chunk;
  return joined.length > MAX_LIVE_OUTPUT ? joined.slice(joined.length - MAX_LIVE_OUTPUT) : joined;
}

/** The model after one event of the session's stream. */
export function applyEvent(model: ChatModel, event: SessionEvent): ChatModel {
  switch (event.type) {
    case 'agent_start':
      return { ...model, running: true, runError: null, retry: null };
    case 'message_start':
      return startMessage(model, event.message);
    case 'message_update': {
      const streaming = lastStreaming(model);
      if (!streaming) return model;
      const items = replaceItem(model, streaming.key, (item) =>
        item.kind === 'assistant'
          ? { ...item, content: applyDelta(item.content, event.delta) }
          : item,
      );
      return { ...model, items };
    }
    case 'message_end':
      return endMessage(model, event.message);
    case 'node_appended': {
      const sessionId = event.session_id;
      if (!model.awaitingNode) return { ...model, sessionId };
      const items = replaceItem(model, model.awaitingNode, (item) => ({
        ...item,
        nodeId: event.node_id,
        siblings: item.siblings.length ? item.siblings : [event.node_id],
      }));
      return { ...model, items, sessionId, awaitingNode: null };
    }
    case 'tool_execution_start': {
      const existing = model.tools[event.tool_call_id];
      const tool: ToolView = {
        id: event.tool_call_id,
        name: event.tool_name,
        status: 'running',
        output: existing?.output ?? '',
        result: null,
      };
      return { ...model, tools: { ...model.tools, [tool.id]: tool } };
    }
    case 'tool_execution_update':
      return updateTool(model, event.tool_call_id, (tool) => ({
        ...tool,
        output: appendOutput(tool.output, event.output),
      }));
    case 'tool_execution_end':
      return updateTool(model, event.tool_call_id, (tool) => ({
        ...tool,
        status: event.is_error ? 'error' : 'done',
        result: event.result,
      }));
    case 'agent_end':
      return {
        ...model,
        running: false,
        retry: null,
        compacting: false,
        tools: settleTools(model.tools),
        runError:
          event.status === 'failed' && event.error && event.error.kind !== 'aborted'
            ? { kind: event.error.kind, message: errorText(event.error) }
            : null,
      };
    case 'retry_scheduled':
      return {
        ...model,
        retry: {
          attempt: event.attempt,
          delayMs: event.delay_ms,
          since: Date.now(),
          message: errorText(event.error),
        },
      };
    case 'compaction_start':
      return { ...model, compacting: true };
    case 'compaction_end':
      return compactionEnded(model, event);
    case 'store_error':
      return {
        ...model,
        runError: { kind: 'provider', message: `Could not save the chat: ${event.message}` },
      };
    case 'snapshot_error':
      return {
        ...model,
        snapshotNotice: {
          count: (model.snapshotNotice?.count ?? 0) + 1,
          message: event.message,
        },
      };
    case 'turn_start':
    case 'turn_end':
      return model;
    case 'approval_requested':
    case 'approval_resolved':
      // Not part of the conversation: the approval queue (state/approvals.svelte.ts) takes it,
      // and the waiting `create_tool` call shows in its card until the user decides.
      return model;
  }
}

function compactionEnded(
  model: ChatModel,
  event: Extract<SessionEvent, { type: 'compaction_end' }>,
): ChatModel {
  if (event.error || event.tokens_after == null) {
    return { ...model, compacting: false };
  }
  const [key, nextKey] = newKey(model);
  const item: CompactionItem = {
    key,
    nodeId: event.node_id ?? null,
    siblings: [],
    kind: 'compaction',
    summary: event.summary ?? null,
    tokensBefore: event.tokens_before,
    tokensAfter: event.tokens_after,
  };
  return { ...model, compacting: false, items: [...model.items, item], nextKey };
}

/** After a run: a tool still "running" was never finished (the run stopped). */
function settleTools(tools: Record<string, ToolView>): Record<string, ToolView> {
  const open = Object.values(tools).filter((tool) => tool.status === 'running');
  if (open.length === 0) return tools;
  const next = { ...tools };
  for (const tool of open) next[tool.id] = { ...tool, status: 'error' };
  return next;
}

export function errorText(error: LlmError): string {
  return error.kind === 'aborted' ? 'Stopped' : error.message;
}

/** Every event of a frame, in order. */
export function applyEvents(model: ChatModel, events: readonly SessionEvent[]): ChatModel {
  let next = model;
  for (const event of events) next = applyEvent(next, event);
  return next;
}

/** The model with everything from `key` on removed (an edit or a regenerate replaces it). */
export function truncateFrom(model: ChatModel, key: string): ChatModel {
  const index = model.items.findIndex((item) => item.key === key);
  if (index < 0) return model;
  return { ...model, items: model.items.slice(0, index), runError: null };
}

/** A tool call's arguments as display text: each `key: value` on its own line. */
export function argumentLines(args: Record<string, JsonValue>): string[] {
  return Object.entries(args).map(
    ([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
}
