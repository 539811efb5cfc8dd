import { describe, expect, it } from 'vitest';
import { REVIEWS, TOOLS } from '../test-ipc';
import {
  argumentsText,
  current,
  EMPTY_QUEUE,
  enqueue,
  formatDuration,
  kindLabel,
  languageOfPath,
  orderedPaths,
  orderedTools,
  permissionLines,
  proposalOfEvent,
  proposalOfReview,
  putFirst,
  remove,
  splitFrontMatter,
  withLoadError,
  withReview,
  type ApprovalEvent,
} from './approvals';

function event(id: string, name = `tool_${id}`): ApprovalEvent {
  return {
    type: 'approval_requested',
    approval_id: id,
    kind: 'create_tool',
    name,
    skill_md: `---\nname: ${name}\n---\nDoes things.\n`,
    files: { 'SKILL.md': `---\nname: ${name}\n---\nDoes things.\n`, 'run.js': 'return 1;\n' },
    allowed_tools: ['read'],
    reason: 'because',
  };
}

describe('the approval queue', () => {
  it('shows the first proposal and keeps the others waiting, in order', () => {
    let queue = enqueue(EMPTY_QUEUE, proposalOfEvent(event('a')));
    queue = enqueue(queue, proposalOfEvent(event('b')));
    queue = enqueue(queue, proposalOfEvent(event('c')));
    expect(current(queue)?.approvalId).toBe('a');
    expect(queue.items.map((p) => p.approvalId)).toEqual(['a', 'b', 'c']);
    queue = remove(queue, 'a');
    expect(current(queue)?.approvalId).toBe('b');
    expect(current(remove(remove(queue, 'b'), 'c'))).toBeNull();
  });

  it('updates a proposal that comes again where it is', () => {
    let queue = enqueue(EMPTY_QUEUE, proposalOfEvent(event('a')));
    queue = enqueue(queue, proposalOfEvent(event('b')));
    queue = enqueue(queue, { ...proposalOfEvent(event('a')), reason: 'again' });
    expect(queue.items.map((p) => [p.approvalId, p.reason])).toEqual([
      ['a', 'again'],
      ['b', 'because'],
    ]);
  });

  it('puts a reviewed proposal first, once', () => {
    let queue = enqueue(EMPTY_QUEUE, proposalOfEvent(event('a')));
    queue = enqueue(queue, proposalOfEvent(event('ap-new')));
    queue = putFirst(queue, proposalOfReview(REVIEWS['ap-new']));
    expect(queue.items.map((p) => p.approvalId)).toEqual(['ap-new', 'a']);
    expect(current(queue)?.permissions).toEqual(['can search file contents in this project']);
  });

  it('fills in the review of a proposal from an event, or why it could not be read', () => {
    const proposal = proposalOfEvent({ ...event('ap-edit'), kind: 'edit_tool' });
    expect(proposal.permissions).toBeNull();
    expect(proposal.changes).toBeNull();
    let queue = enqueue(EMPTY_QUEUE, proposal);
    queue = withReview(queue, REVIEWS['ap-edit']);
    expect(current(queue)?.permissions).toHaveLength(2);
    expect(current(queue)?.changes?.[0].path).toBe('notes.js');
    // A review of a proposal no longer queued changes nothing.
    expect(withReview(EMPTY_QUEUE, REVIEWS['ap-edit'])).toBe(EMPTY_QUEUE);
    queue = withLoadError(queue, 'ap-edit', { code: 'not_pending', message: 'already answered' });
    expect(current(queue)?.loadError).toEqual({
      code: 'not_pending',
      message: 'already answered',
    });
  });

  it('marks a proposal answered elsewhere', () => {
    const answered = proposalOfReview({ ...REVIEWS['ap-new'], status: 'approved' });
    expect(answered.loadError).toEqual({
      code: 'not_pending',
      message: 'This tool was already approved.',
    });
    expect(proposalOfReview(REVIEWS['ap-new']).loadError).toBeNull();
  });

  it('is never changed in place', () => {
    const queue = enqueue(EMPTY_QUEUE, proposalOfEvent(event('a')));
    const before = JSON.stringify(queue);
    enqueue(queue, proposalOfEvent(event('b')));
    remove(queue, 'a');
    putFirst(queue, proposalOfEvent(event('c')));
    expect(JSON.stringify(queue)).toBe(before);
    expect(remove(queue, 'missing')).toBe(queue);
  });
});

describe('what the dialog and the panel say', () => {
  it('names the kind and the permissions in words', () => {
    expect(kindLabel('create_tool')).toBe('New tool');
    expect(kindLabel('edit_tool')).toBe('Change to an approved tool');
    expect(permissionLines([])).toEqual(['cannot touch files']);
    expect(permissionLines(['can write files in this project'])).toEqual([
      'can write files in this project',
    ]);
  });

  it('orders files with SKILL.md first, and highlights by extension', () => {
    expect(orderedPaths({ 'z.js': '', 'SKILL.md': '', 'lib/a.js': '' })).toEqual([
      'SKILL.md',
      'lib/a.js',
      'z.js',
    ]);
    expect(languageOfPath('run.js')).toBe('js');
    expect(languageOfPath('lib/Data.JSON')).toBe('json');
    expect(languageOfPath('Makefile')).toBeUndefined();
    expect(languageOfPath('.env')).toBeUndefined();
  });

  it('splits the front matter from the instructions', () => {
    expect(splitFrontMatter('---\nname: x\ndescription: y\n---\n# Title\n\nBody\n')).toEqual({
      frontMatter: 'name: x\ndescription: y',
      body: '# Title\n\nBody\n',
    });
    expect(splitFrontMatter('---\r\nname: x\r\n---\r\nBody')).toEqual({
      frontMatter: 'name: x',
      body: 'Body',
    });
    expect(splitFrontMatter('# No front matter\n')).toEqual({
      frontMatter: null,
      body: '# No front matter\n',
    });
  });

  it('lists pending tools first, then invalid, approved and built-in ones', () => {
    expect(orderedTools(TOOLS).map((tool) => tool.name)).toEqual([
      'release_notes',
      'todo_finder',
      'broken',
      'word_count',
      'read',
    ]);
  });

  it('formats runs', () => {
    expect(formatDuration(42)).toBe('42 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(argumentsText('{ "path": "a.md" }')).toBe('{"path":"a.md"}');
    expect(argumentsText('not json')).toBe('not json');
  });
});
