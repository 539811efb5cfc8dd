// What the session generators share: their arguments, the usage of each generated answer, and
// writing the session as a lossless JSONL export (the format `arbor import` reads; see
// arbor-coding's export docs) — a header line, then one line per node.
import { randomUUID } from 'node:crypto';

/** `[count, root]` from `node SCRIPT N PROJECT_ROOT`; exits with the usage line when wrong. */
export function countAndRoot(script, fallback, least) {
  const count = Number(process.argv[2] ?? fallback);
  const root = process.argv[3];
  if (!Number.isInteger(count) || count < least || !root) {
    console.error(`usage: node scripts/bench/${script} N PROJECT_ROOT`);
    process.exit(2);
  }
  return [count, root];
}

export const USAGE = {
  input: 1200,
  output: 300,
  cache_read: 0,
  cache_write: 0,
  cost: { input: 0.0036, output: 0.0045, cache_read: 0, cache_write: 0, total: 0.0081 },
};

export const newId = randomUUID;

/** Writes the session: `session` is the header's session object, `nodes` its node lines. */
export function writeSession(session, nodes) {
  const header = { type: 'arbor_session', version: 1, session };
  process.stdout.write([header, ...nodes].map((line) => JSON.stringify(line)).join('\n') + '\n');
}
