// Writes a lossless JSONL export (the format `arbor import` reads; see arbor-coding's export
// docs) of one session with N messages — alternating user questions and Markdown answers with
// code blocks — for the desktop benchmark.
// Usage: node scripts/bench/long-session.mjs N PROJECT_ROOT > session.jsonl
import {
  countAndRoot,
  newId as randomUUID,
  USAGE as usage,
  writeSession,
} from './session-jsonl.mjs';

const [count, root] = countAndRoot('long-session.mjs', 2000, 2);
const session = randomUUID();
const start = Date.now() - count * 1000;
const nodes = [];
let parent = null;
for (let i = 0; i < count; i++) {
  const id = randomUUID();
  const user = i % 2 === 0;
  const text = user
    ? `Question ${i}: why does the parser reject input number ${i}?`
    : `## Answer ${i}\n\nThe parser rejects it because **the token stream** ends early. ` +
      'Here is the fix:\n\n```rust\nfn parse(input: &str) -> Result<Ast, Error> {\n' +
      '    let tokens = lex(input)?;\n    Parser::new(tokens).parse_all()\n}\n```\n\n' +
      '- check the lexer\n- add a test\n- run `cargo test`\n';
  const content = user
    ? { role: 'user', content: [{ type: 'text', text }] }
    : {
        role: 'assistant',
        content: [{ type: 'text', text }],
        api: 'openai-completions',
        provider: 'mock',
        model: 'm1',
        usage,
        stop_reason: 'stop',
      };
  nodes.push({
    type: 'node',
    id,
    session_id: session,
    parent_id: parent,
    kind: user ? 'user' : 'assistant',
    role: user ? 'user' : 'assistant',
    content,
    text,
    usage: user ? null : usage,
    aborted: false,
    first_kept_id: null,
    tokens_before: null,
    created_at: start + i * 1000,
    label: null,
  });
  parent = id;
}
writeSession(
  {
    id: session,
    title: `A long session (${count} messages)`,
    title_is_custom: true,
    model: 'mock/m1',
    thinking_level: 'off',
    created_at: start,
    updated_at: start + count * 1000,
    current_leaf: parent,
    project_root: root,
    node_count: count,
  },
  nodes,
);
