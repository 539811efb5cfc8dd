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
import type { DocumentAttachment } from '../ipc/wire';
import { documentFromText, parseDocumentHeading } from '../lib/chat/attachments';
import type { DocumentHeading } from '../lib/chat/attachments';

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

/** A document sent with a user message: its chip, and its text to send it again. */
export interface MessageDocument extends DocumentHeading {
  /** The whole text part (heading, markers, text): what the model read. */
  text: string;
}

export interface UserItem extends ItemBase {
  kind: 'user';
  /** What the user typed (the documents' text left out). */
  text: string;
  images: ImageContent[];
  documents: MessageDocument[];
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
  /** The call's id. Not unique: some providers reuse ids within a session (see `toolKey`). */
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

/** Notices of a provider's stream that did not stop the run (e.g. events that were not valid
 * JSON, skipped): counted until dismissed. */
export interface StreamNotice {
  /** How many notices came since it showed. */
  count: number;
  /** Events skipped, over all of them. */
  skipped: number;
  /** The last notice's words. */
  message: string;
}

/** Another window or `arbor -c` wrote to the open session: its turns are a branch in the tree. */
export interface ExternalWriteNotice {
  count: number;
  /** The session's leaf as the other writer left it. */
  otherLeafId: string | null;
}

/** A prompt to send again (the user message of a turn the store could not save). */
export interface UnsavedPrompt {
  text: string;
  images: ImageContent[];
  documents: DocumentAttachment[];
}

export interface RunError {
  /** `store`: the chat could not be saved, and the run was stopped. */
  kind: LlmError['kind'] | 'store';
  message: string;
  /** A store error: the turn's user message when it was not saved (retry sends it again);
   * `null` when it was saved (retry asks for the answer again). */
  unsavedPrompt?: UnsavedPrompt | null;
}

/** Items the store could not save: still shown, until the next run or another branch. */
export interface Unsaved {
  /** The first unsaved item. */
  from: string;
  /** The stored node they hang under (`null`: none, a new chat): they stay on screen while the
   * stored branch shown still ends there. */
  parent: string | null;
}

export interface ChatModel {
  sessionId: string | null;
  title: string | null;
  items: ChatItem[];
  /** Tool cards by `toolKey(message key, call id)`: the cards of the assistant messages read
   * them. Call ids are not unique (providers reuse them), so each message has its own. */
  tools: Record<string, ToolView>;
  /** The current run's calls: call id → the card of its latest call with that id (tool events
   * carry only the call id). `null` until a run starts in this window: a window opened during a
   * run has not seen its calls, and takes the latest shown. */
  liveCalls: ReadonlyMap<string, string> | null;
  /** Results at the top of `items` whose call is earlier in the branch (not read yet), by call
   * id: a page of earlier entries brings their cards. */
  looseResults: ReadonlyMap<string, ToolView>;
  /** The last stored node this window knows of on its branch (the leaf). */
  leafId: string | null;
  state: SessionState;
  running: boolean;
  compacting: boolean;
  retry: RetryNotice | null;
  runError: RunError | null;
  snapshotNotice: SnapshotNotice | null;
  streamNotice: StreamNotice | null;
  externalWrite: ExternalWriteNotice | null;
  /** Another process wrote to the session: read the stored view again once no run is active. */
  reloadWanted: boolean;
  /** The stream of the current run left out something the stored view shows (an older stream's
   * `node_appended` without the node's views, a compaction, a stored message this window did
   * not stream, a new chat's title): the view is read when the run ends (`needsStoredView`). */
  readAfterRun: boolean;
  /** A turn the store could not save, kept on screen. */
  unsaved: Unsaved | null;
  /** The item whose `node_appended` comes next (it follows its `message_end`). */
  awaitingNode: string | null;
  nextKey: number;
  /** Entries of the branch before `items` that the window has not read (see `prependPage`). */
  earlier: number;
}

/** Live tool output kept for display; the full result arrives with `tool_execution_end`. */
export const MAX_LIVE_OUTPUT = 200_000;

/** What the user typed: the text parts that are not an attached document's text. */
export function textOf(content: UserContent[]): string {
  return content
    .filter((part) => part.type === 'text' && !parseDocumentHeading(part.text))
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
}

/** The documents attached to a user message: text parts headed `[name: label, N parts]`. */
export function documentsOf(content: UserContent[]): MessageDocument[] {
  const documents: MessageDocument[] = [];
  for (const part of content) {
    if (part.type !== 'text') continue;
    const heading = parseDocumentHeading(part.text);
    if (heading) documents.push({ ...heading, text: part.text });
  }
  return documents;
}

/** A user item's message again as the prompt takes it (a turn the store could not save). */
function promptOf(item: UserItem): UnsavedPrompt {
  return {
    text: item.text,
    images: item.images,
    documents: item.documents.flatMap((document) => documentFromText(document.text) ?? []),
  };
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

/** The key of the card of call `callId` in the assistant message keyed `itemKey`. */
export function toolKey(itemKey: string, callId: string): string {
  return `${itemKey}|${callId}`;
}

/** The card of the latest call `callId` in `items` (searched from the end). */
function lastCallCard(items: readonly ChatItem[], callId: string): string | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.kind !== 'assistant') continue;
    if (item.content.some((part) => part.type === 'tool_call' && part.id === callId)) {
      return toolKey(item.key, callId);
    }
  }
  return null;
}

/** Gives each loose result the card of the latest call with its id in `items`; answers the
 * results that found none. */
function placeResults(
  results: ReadonlyMap<string, ToolView>,
  items: readonly ChatItem[],
  tools: Record<string, ToolView>,
): Map<string, ToolView> {
  const left = new Map<string, ToolView>();
  for (const [callId, result] of results) {
    const card = lastCallCard(items, callId);
    if (card) tools[card] = result;
    else left.set(callId, result);
  }
  return left;
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
  const sameSession = previous?.sessionId === view.session_id;
  // A view carries the tail of a long branch: earlier items read before on the same branch stay.
  const at = previous && sameSession ? sharedStart(view, previous) : -1;
  const kept = at > 0 && previous ? previous.items.slice(0, at) : [];
  const items: ChatItem[] = [...kept];
  const tools: Record<string, ToolView> = {};
  if (previous) copyTools(kept, previous.tools, tools);
  // The cards a result goes to: the latest call with its id before it on the branch.
  const owners = new Map<string, string>();
  for (const item of kept) ownCalls(item, owners);
  const loose = new Map<string, ToolView>(kept.length && previous ? previous.looseResults : []);
  for (const entry of view.entries) {
    const old = byNode.get(entry.node_id);
    const base: ItemBase = {
      key: old?.key ?? `n-${entry.node_id}`,
      nodeId: entry.node_id,
      siblings: entry.sibling_ids,
    };
    const item = itemOfEntry(entry, base, tools, owners, loose);
    if (!item) continue;
    // Unchanged stored items keep their identity, so their components do not re-render.
    items.push(old && sameItem(old, item) ? old : item);
  }
  const earlier = kept.length && previous ? previous.earlier : view.earlier;
  const leafId = view.entries.at(-1)?.node_id ?? null;
  // A turn the store could not save stays under the node it followed while the branch shown
  // still ends there (the reload after the run does not have it).
  const unsaved = keptUnsaved(view, leafId, previous);
  if (previous && sameSession && previous.runError?.kind === 'store') {
    keepUnsavedResults(items, previous.tools, tools);
  }
  if (unsaved && previous) {
    const from = indexOfKey(previous, unsaved.from);
    const rest = previous.items.slice(from);
    items.push(...rest);
    copyTools(rest, previous.tools, tools);
  }
  return {
    sessionId: view.session_id,
    title: view.title,
    items,
    tools,
    liveCalls: null,
    looseResults: loose,
    leafId,
    state: view.state,
    running: view.state.is_streaming,
    compacting: false,
    retry: null,
    // A store error's retry sends its prompt again: only in the chat it happened in.
    runError:
      previous?.running === false && (previous.runError?.kind !== 'store' || sameSession || unsaved)
        ? previous.runError
        : null,
    snapshotNotice: sameSession ? (previous?.snapshotNotice ?? null) : null,
    streamNotice: sameSession ? (previous?.streamNotice ?? null) : null,
    externalWrite: sameSession ? (previous?.externalWrite ?? null) : null,
    reloadWanted: false,
    // A window opened during a run has not seen its start (nor what it streamed until then).
    readAfterRun: view.state.is_streaming,
    unsaved,
    awaitingNode: null,
    nextKey,
    earlier,
  };
}

/** After a store error: a call that ran but whose result could not be stored keeps what the
 * window saw of it (its output and result), instead of reading as "not run" — it did run. */
function keepUnsavedResults(
  items: readonly ChatItem[],
  before: Record<string, ToolView>,
  tools: Record<string, ToolView>,
): void {
  for (const item of items) {
    if (item.kind !== 'assistant') continue;
    for (const part of item.content) {
      if (part.type !== 'tool_call') continue;
      const key = toolKey(item.key, part.id);
      const seen = before[key];
      if (!tools[key]?.result && seen && (seen.result || seen.output)) tools[key] = seen;
    }
  }
}

function keptUnsaved(
  view: SessionView,
  leafId: string | null,
  previous: ChatModel | undefined,
): Unsaved | null {
  const unsaved = previous?.unsaved;
  if (!previous || !unsaved || view.state.is_streaming) return null;
  if (indexOfKey(previous, unsaved.from) < 0) return null;
  // A new chat whose first message was not saved may have its session id only now.
  const sameSession =
    previous.sessionId === view.session_id || (previous.sessionId === null && !unsaved.parent);
  return sameSession && leafId === unsaved.parent ? unsaved : null;
}

/** The cards of `items`' calls, from `from` into `into`. */
function copyTools(
  items: readonly ChatItem[],
  from: Record<string, ToolView>,
  into: Record<string, ToolView>,
) {
  for (const item of items) {
    if (item.kind !== 'assistant') continue;
    for (const part of item.content) {
      if (part.type !== 'tool_call') continue;
      const key = toolKey(item.key, part.id);
      if (Object.hasOwn(from, key)) into[key] = from[key];
    }
  }
}

/** Records `item`'s calls as the latest of their ids. */
function ownCalls(item: ChatItem, owners: Map<string, string>) {
  if (item.kind !== 'assistant') return;
  for (const part of item.content) {
    if (part.type === 'tool_call') owners.set(part.id, toolKey(item.key, part.id));
  }
}

function indexOfNode(model: ChatModel, nodeId: string): number {
  return model.items.findIndex((item) => item.nodeId === nodeId);
}

/** Where the view's first message is among `previous`'s items (-1: not there). Tool results and
 * markers before it show as no item of their own. */
function sharedStart(view: SessionView, previous: ChatModel): number {
  const first = view.entries.find((entry) => !NOT_ITEMS.has(entry.kind));
  return first ? indexOfNode(previous, first.node_id) : -1;
}

/** Entries that are no item of the chat (a result shows in its call's card). */
const NOT_ITEMS = new Set<BranchEntry['kind']>([
  'tool_result',
  'model_change',
  'thinking_level_change',
  'label',
]);

/** `model` with a page of earlier entries of its branch put before its items. */
export function prependPage(model: ChatModel, page: BranchPage): ChatModel {
  const head = fromView({
    session_id: model.sessionId,
    title: model.title,
    entries: page.entries,
    earlier: page.earlier,
    state: model.state,
  });
  const tools = { ...head.tools, ...model.tools };
  // Results at the top of what was shown whose calls this page brings.
  const left = placeResults(model.looseResults, head.items, tools);
  return {
    ...model,
    items: [...head.items, ...model.items],
    tools,
    looseResults: new Map([...left, ...head.looseResults]),
    earlier: page.earlier,
  };
}

function itemOfEntry(
  entry: BranchEntry,
  base: ItemBase,
  tools: Record<string, ToolView>,
  owners: Map<string, string>,
  loose: Map<string, ToolView>,
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
      documents: documentsOf(message.content),
    };
  }
  if (message.role === 'assistant') {
    const item = assistantItem(base, message, entry.aborted ? 'aborted' : undefined);
    for (const part of message.content) {
      if (part.type !== 'tool_call') continue;
      const key = toolKey(base.key, part.id);
      owners.set(part.id, key);
      // Until its result is seen: a call the run never finished.
      tools[key] ??= { id: part.id, name: part.name, status: 'error', output: '', result: null };
    }
    return item;
  }
  if (message.role === 'tool_result') {
    const tool = toolFromResult(message.tool_call_id, message.tool_name, message.is_error, {
      content: message.content,
      details: message.details ?? null,
    });
    const owner = owners.get(message.tool_call_id);
    // A result whose call is before the entries read: kept until a page brings the call.
    if (owner) tools[owner] = tool;
    else if (!loose.has(tool.id)) loose.set(tool.id, tool);
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
      documents: documentsOf(message.content),
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
    let liveCalls = model.liveCalls;
    for (const part of message.content) {
      if (part.type !== 'tool_call') continue;
      const key = toolKey(streaming.key, part.id);
      // Tool events name only the call id: from now on it means this message's call.
      if (liveCalls?.get(part.id) !== key) liveCalls = new Map(liveCalls).set(part.id, key);
      if (!Object.hasOwn(tools, key)) {
        tools = {
          ...tools,
          [key]: { id: part.id, name: part.name, status: 'running', output: '', result: null },
        };
      }
    }
    return { ...model, items, tools, liveCalls, awaitingNode: streaming.key };
  }
  if (message.role === 'user') {
    const last = model.items[model.items.length - 1];
    return { ...model, awaitingNode: last?.kind === 'user' ? last.key : null };
  }
  if (message.role === 'tool_result') {
    const key = liveCard(model, message.tool_call_id);
    if (!key) return { ...model, awaitingNode: null };
    const previous = Object.hasOwn(model.tools, key) ? model.tools[key] : undefined;
    const tool = toolFromResult(
      message.tool_call_id,
      message.tool_name,
      message.is_error,
      { content: message.content, details: message.details ?? null },
      previous,
    );
    return { ...model, tools: { ...model.tools, [key]: tool }, awaitingNode: null };
  }
  return { ...model, awaitingNode: null };
}

/** The card a tool event of the current run means: its latest call with that id. Never an
 * earlier run's card (ids repeat); a window opened during a run takes the latest shown. */
function liveCard(model: ChatModel, callId: string): string | null {
  if (model.liveCalls) return model.liveCalls.get(callId) ?? null;
  return lastCallCard(model.items, callId);
}

function updateTool(
  model: ChatModel,
  callId: string,
  change: (tool: ToolView) => ToolView,
): ChatModel {
  const key = liveCard(model, callId);
  if (!key || !Object.hasOwn(model.tools, key)) return model;
  return { ...model, tools: { ...model.tools, [key]: change(model.tools[key]) } };
}

function appendOutput(output: string, chunk: string): string {
  const joined = output + chunk;
  return joined.length > MAX_LIVE_OUTPUT ? joined.slice(joined.length - MAX_LIVE_OUTPUT) : joined;
}

/** The model after one event of the session's stream. */
export function applyEvent(model: ChatModel, event: SessionEvent): ChatModel {
  switch (event.type) {
    case 'agent_start':
      return {
        ...dropUnsaved(model),
        running: true,
        runError: null,
        retry: null,
        liveCalls: new Map(),
        // A new chat's first message gives it its title, which only the stored view has.
        readAfterRun: model.sessionId === null,
      };
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
      const delta = event.delta;
      if (delta.type === 'tool_call_start') {
        // From now on the id means this message's call (its card shows as it streams).
        const liveCalls = new Map(model.liveCalls).set(delta.id, toolKey(streaming.key, delta.id));
        return { ...model, items, liveCalls };
      }
      return { ...model, items };
    }
    case 'message_end':
      return endMessage(model, event.message);
    case 'node_appended':
      return nodeAppended(model, event);
    case 'tool_execution_start': {
      const key = liveCard(model, event.tool_call_id);
      if (!key) return model;
      const existing = Object.hasOwn(model.tools, key) ? model.tools[key] : undefined;
      const tool: ToolView = {
        id: event.tool_call_id,
        name: event.tool_name,
        status: 'running',
        output: existing?.output ?? '',
        result: null,
      };
      return { ...model, tools: { ...model.tools, [key]: tool } };
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
        items: settleStreaming(model),
        running: false,
        retry: null,
        compacting: false,
        tools: settleTools(model.tools),
        // A failed store write stopped the run (it ends as aborted): its error stays.
        runError:
          model.runError?.kind === 'store'
            ? model.runError
            : event.status === 'failed' && event.error && event.error.kind !== 'aborted'
              ? { kind: event.error.kind, message: errorText(event.error) }
              : null,
      };
    case 'retry_scheduled':
      return {
        ...model,
        // A retry after a broken stream moves the leaf back above the failed answer (stored,
        // and shown): the stored branch differs from what streamed, so it is read after the run.
        readAfterRun: true,
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
      return storeFailed(model, event.message);
    case 'stream_notice':
      return {
        ...model,
        streamNotice: {
          count: (model.streamNotice?.count ?? 0) + 1,
          skipped: (model.streamNotice?.skipped ?? 0) + event.skipped,
          message: event.message,
        },
      };
    case 'session_written_elsewhere':
      // Late news of a session this window has left.
      if (model.sessionId !== null && event.session_id !== model.sessionId) return model;
      return {
        ...model,
        externalWrite: {
          count: (model.externalWrite?.count ?? 0) + 1,
          otherLeafId: event.other_leaf_id ?? null,
        },
        reloadWanted: true,
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
    case 'permission_requested':
    case 'permission_resolved':
    case 'permission_mode_changed':
      // Not part of the conversation: the permission store (state/permissions.svelte.ts) takes
      // them, and the waiting tool call shows in its card until the user answers.
      return model;
    case 'elicitation_requested':
    case 'elicitation_resolved':
      // Not part of the conversation: the elicitation store (state/elicitation.svelte.ts)
      // takes them, and the MCP call asking shows in its card until the person answers.
      return model;
  }
}

/** A node was stored: the item awaiting it gets its id and siblings, and the leaf moves. */
function nodeAppended(
  model: ChatModel,
  event: Extract<SessionEvent, { type: 'node_appended' }>,
): ChatModel {
  const sessionId = event.session_id;
  // The stream carries the node's siblings (`‹ 2/3 ›`) and tree view; an older stream, or a
  // node the session could not read back, does not: the stored view is read after the run.
  const carried = event.sibling_ids?.length ? event.sibling_ids : null;
  let readAfterRun =
    model.readAfterRun ||
    !carried ||
    !event.node ||
    (model.sessionId !== null && model.sessionId !== sessionId);
  if (!model.awaitingNode) {
    // A marker (model or thinking level changed) or a tool result is a node too: the leaf moves.
    // A message no item awaits (e.g. one that streamed before this window opened) is read.
    if (!event.node || !NOT_ITEMS.has(event.node.kind)) readAfterRun = true;
    return { ...model, sessionId, leafId: event.node_id, readAfterRun };
  }
  const items = replaceItem(model, model.awaitingNode, (item) => ({
    ...item,
    nodeId: event.node_id,
    siblings: carried ?? (item.siblings.length ? item.siblings : [event.node_id]),
  }));
  return { ...model, items, sessionId, leafId: event.node_id, awaitingNode: null, readAfterRun };
}

/**
 * Whether the chat must read the stored view after its run ended, rather than only the header's
 * figures (`sessionState`): the stream showed everything a reload would (node ids, siblings, the
 * leaf) only when none of these holds.
 * - the run left something out (`readAfterRun`: an older stream, a compaction — the view's
 *   entries change —, a message this window did not stream, a new chat's title);
 * - another process wrote to the session (`reloadWanted`: its turns, its leaf);
 * - a store write failed (`runError` of kind `store`, `unsaved`): the view keeps the unsaved
 *   turn on screen under what is stored, and drops what the window thought stored;
 * - an item has no stored node (an answer cut off before it was stored, a compaction without
 *   its node): the stored view does not have it;
 * - no session yet (nothing of the run was stored).
 */
export function needsStoredView(model: ChatModel): boolean {
  return (
    model.readAfterRun ||
    model.reloadWanted ||
    model.runError?.kind === 'store' ||
    model.unsaved !== null ||
    model.sessionId === null ||
    model.items.some((item) => item.nodeId === null)
  );
}

/** A store write failed: the run stops, nothing after this point is saved. The turn's items not
 * stored stay on screen (see `Unsaved`), and retrying sends the unsaved prompt again. */
function storeFailed(model: ChatModel, message: string): ChatModel {
  // What has no node yet was not stored: from the last stored item on (or, after an earlier
  // failure of the same turn, from where that one started).
  let from = model.items.length;
  while (from > 0 && model.items[from - 1].nodeId === null) from--;
  const known = model.unsaved ? indexOfKey(model, model.unsaved.from) : -1;
  let unsaved = model.unsaved;
  if (known >= 0 && known <= from) from = known;
  else if (from < model.items.length) {
    unsaved = { from: model.items[from].key, parent: model.leafId };
  }
  const user = model.items.slice(from).find((item): item is UserItem => item.kind === 'user');
  const previous = model.runError?.kind === 'store' ? model.runError.unsavedPrompt : null;
  return {
    ...model,
    readAfterRun: true,
    runError: {
      kind: 'store',
      message,
      unsavedPrompt: user ? promptOf(user) : (previous ?? null),
    },
    unsaved,
    awaitingNode: null,
    retry: null,
  };
}

function indexOfKey(model: ChatModel, key: string): number {
  return model.items.findIndex((item) => item.key === key);
}

/** `model` without the turn the store could not save (a new run starts from what is stored). */
function dropUnsaved(model: ChatModel): ChatModel {
  if (!model.unsaved) return model;
  const from = indexOfKey(model, model.unsaved.from);
  return { ...model, items: from < 0 ? model.items : model.items.slice(0, from), unsaved: null };
}

/** After a run: a message still streaming was cut off. */
function settleStreaming(model: ChatModel): ChatItem[] {
  const streaming = lastStreaming(model);
  if (!streaming) return model.items;
  return replaceItem(model, streaming.key, (item) =>
    item.kind === 'assistant' ? { ...item, status: 'aborted' } : item,
  );
}

function compactionEnded(
  model: ChatModel,
  event: Extract<SessionEvent, { type: 'compaction_end' }>,
): ChatModel {
  if (event.error || event.tokens_after == null) {
    // A compaction that failed after an overflow leaves the leaf above the failed answer: the
    // stored branch is read after the run. (One before a request changed nothing.)
    const readAfterRun = model.readAfterRun || event.reason === 'overflow';
    return { ...model, compacting: false, readAfterRun };
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
  return {
    ...model,
    compacting: false,
    items: [...model.items, item],
    leafId: event.node_id ?? model.leafId,
    nextKey,
    // The stored view after a compaction differs from what streamed (its summary node, the
    // entries it stands in for): read it after the run.
    readAfterRun: true,
  };
}

/** After a run: a tool still "running" was never finished (the run stopped). */
function settleTools(tools: Record<string, ToolView>): Record<string, ToolView> {
  const open = Object.entries(tools).filter(([, tool]) => tool.status === 'running');
  if (open.length === 0) return tools;
  const next = { ...tools };
  for (const [key, tool] of open) next[key] = { ...tool, status: 'error' };
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
  const from = model.unsaved ? indexOfKey(model, model.unsaved.from) : -1;
  const unsaved = from >= 0 && from < index ? model.unsaved : null;
  return { ...model, items: model.items.slice(0, index), runError: null, unsaved };
}

/** A tool call's arguments as display text: each `key: value` on its own line. */
export function argumentLines(args: Record<string, JsonValue>): string[] {
  return Object.entries(args).map(
    ([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
}
