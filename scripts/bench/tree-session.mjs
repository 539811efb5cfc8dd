// Writes a lossless JSONL export (the format `arbor import` reads) of one branching session of
// N nodes for the tree-panel benchmark: turns of a user prompt → an assistant message with a
// tool call → its tool result (1–4 KB of source-like text) → an answer, and about every 20
// nodes a side branch (a regenerated answer that goes on for one to three turns and stops).
// The current leaf is the end of the main line.
// Usage: node scripts/bench/tree-session.mjs N PROJECT_ROOT > session.jsonl
import {
  countAndRoot,
  newId as randomUUID,
  USAGE as usage,
  writeSession,
} from './session-jsonl.mjs';

const [count, root] = countAndRoot('tree-session.mjs', 10000, 8);
const session = randomUUID();
const start = Date.now() - count * 1000;
const nodes = [];

function body(seed, bytes) {
  let text = '';
  for (let line = 1; text.length < bytes; line++) {
    text += `${String(line).padStart(4)}  let value_${seed}_${line} = compute("input", ${line}).map_err(Error::from)?;\n`;
  }
  return text;
}

function push(parent, kind, content, text) {
  const id = randomUUID();
  const assistant = kind === 'assistant';
  nodes.push({
    type: 'node',
    id,
    session_id: session,
    parent_id: parent,
    kind,
    role: kind,
    content,
    text,
    usage: assistant ? usage : null,
    aborted: false,
    first_kept_id: null,
    tokens_before: null,
    created_at: start + nodes.length * 1000,
    label: null,
  });
  return id;
}

const answer = (text, calls = []) => ({
  role: 'assistant',
  content: [{ type: 'text', text }, ...calls],
  api: 'openai-completions',
  provider: 'mock',
  model: 'm1',
  usage,
  stop_reason: calls.length ? 'tool_use' : 'stop',
});

/** One turn under `parent` (4 nodes); returns its last node. */
function turn(parent, n, tag) {
  const question = `Question ${n}${tag}: why does the parser reject input number ${n}?`;
  let at = push(
    parent,
    'user',
    { role: 'user', content: [{ type: 'text', text: question }] },
    question,
  );
  const callId = `call_${n}${tag}`;
  const reading = `Let me read src/parser_${n}.rs first.`;
  at = push(
    at,
    'assistant',
    answer(reading, [
      { type: 'tool_call', id: callId, name: 'read', arguments: { path: `src/parser_${n}.rs` } },
    ]),
    reading,
  );
  const output = body(n, 1000 + ((n * 7919) % 3000));
  at = push(
    at,
    'tool_result',
    {
      role: 'tool_result',
      tool_call_id: callId,
      tool_name: 'read',
      content: [{ type: 'text', text: output }],
      is_error: false,
      details: null,
    },
    output,
  );
  const done = `## Answer ${n}${tag}\n\nThe parser rejects it because **the token stream** ends early.\n\n- check the lexer\n- add a test`;
  return push(at, 'assistant', answer(done), done);
}

let main = null;
let n = 0;
while (nodes.length < count) {
  const before = main;
  main = turn(main, n++, '');
  // Every ~20 nodes (5 turns), a side branch under the turn before: 1–3 turns that stop there.
  if (n % 5 === 0 && before !== null) {
    let side = before;
    for (let k = 0; k < 1 + (n % 3) && nodes.length < count - 4; k++) side = turn(side, n, `b${k}`);
  }
}
const kept = nodes.slice(0, count);
const ids = new Set(kept.map((node) => node.id));
const leaf = ids.has(main) ? main : kept.filter((node) => node.kind === 'assistant').at(-1).id;
writeSession(
  {
    id: session,
    title: `A branching session (${count} nodes)`,
    title_is_custom: true,
    model: 'mock/m1',
    thinking_level: 'off',
    created_at: start,
    updated_at: start + count * 1000,
    current_leaf: leaf,
    project_root: root,
    node_count: count,
  },
  kept,
);
