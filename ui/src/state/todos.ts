// The agent's task checklist: the `todo` tool's arguments carry the whole list each call
// (`{"todos": [{"content", "status"}]}`), so the list shown is the last call's. Pure, so it is
// unit-tested (todos.test.ts); the model's arguments are hostile: anything off is dropped.
import type { BranchEntry, JsonValue } from '../ipc/wire';
import type { ChatItem } from './chat';

export type TodoStatus = 'pending' | 'in_progress' | 'done';

export interface Todo {
  content: string;
  status: TodoStatus;
}

/** More is not a checklist; the rest are left out. */
export const MAX_TODOS = 100;

/** The mark a task shows before its text, in the chat's checklist and the tree's preview. */
export const TODO_MARKS: Record<TodoStatus, string> = { pending: '○', in_progress: '◐', done: '✓' };

/** The name of the built-in tool. */
export const TODO_TOOL = 'todo';

const STATUSES: readonly string[] = ['pending', 'in_progress', 'done'] satisfies TodoStatus[];

function todoOf(entry: JsonValue): Todo | null {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return null;
  const { content, status } = entry;
  if (typeof content !== 'string' || !content.trim()) return null;
  if (typeof status !== 'string' || !STATUSES.includes(status)) return null;
  return { content: content.trim(), status: status as TodoStatus };
}

/** The list of a `todo` call's arguments, or `null` when they are not one: no `todos` array
 * (a JSON string of one is read too), or entries none of which is a task. An empty array is a
 * list: the agent cleared it. */
export function parseTodos(args: Record<string, JsonValue> | null | undefined): Todo[] | null {
  let raw: JsonValue | undefined = args?.todos;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw) as JsonValue;
    } catch {
      return null;
    }
  }
  if (!Array.isArray(raw)) return null;
  const todos: Todo[] = [];
  for (const entry of raw) {
    const todo = todoOf(entry);
    if (todo) todos.push(todo);
    if (todos.length === MAX_TODOS) break;
  }
  return raw.length > 0 && todos.length === 0 ? null : todos;
}

// Arguments objects are immutable (a streamed change replaces them): each is read once, and the
// same call gives the same array, so a `$derived` over it settles while other messages stream.
const parsed = new WeakMap<object, Todo[] | null>();

function todosOfCall(args: Record<string, JsonValue>): Todo[] | null {
  let todos = parsed.get(args);
  if (todos === undefined) {
    todos = parseTodos(args);
    parsed.set(args, todos);
  }
  return todos;
}

/** The list of the last `todo` call on the shown branch whose arguments are one, or `null`.
 * `refused(itemKey, callId)` says a call's result was an error (the tool refused the list, so
 * the model was told it did not take): such calls are passed over. */
export function currentTodos(
  items: readonly ChatItem[],
  refused: (itemKey: string, callId: string) => boolean = () => false,
): readonly Todo[] | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.kind !== 'assistant') continue;
    for (let j = item.content.length - 1; j >= 0; j--) {
      const part = item.content[j];
      if (part.type !== 'tool_call' || part.name !== TODO_TOOL) continue;
      if (refused(item.key, part.id)) continue;
      const todos = todosOfCall(part.arguments);
      if (todos) return todos;
    }
  }
  return null;
}

/** The list a stored turn set (its last `todo` call), for the tree's preview of that node. */
export function todosOfEntry(entry: BranchEntry): readonly Todo[] | null {
  const message = entry.message;
  if (message?.role !== 'assistant') return null;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const part = message.content[i];
    if (part.type !== 'tool_call' || part.name !== TODO_TOOL) continue;
    const todos = todosOfCall(part.arguments);
    if (todos) return todos;
  }
  return null;
}
