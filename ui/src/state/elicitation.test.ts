import { describe, expect, it } from 'vitest';
import type { ElicitationField, ElicitationRequest, SessionEvent } from '../ipc/wire';
import { ELICITATION_REQUEST } from '../test-ipc';
import {
  answeredText,
  BAD_NUMBER,
  current,
  EMPTY_ELICITATIONS,
  fieldLabel,
  formAnswer,
  inputType,
  localDateTime,
  looksLike,
  parseNumber,
  problems,
  readField,
  reduce,
  resolvedElsewhereText,
  startValue,
  startValues,
  visibleOptionLabel,
  waiting,
  withRestored,
  zonedDateTime,
  type ElicitationState,
  type FieldValue,
} from './elicitation';

function request(id: string): ElicitationRequest {
  return { ...ELICITATION_REQUEST, request_id: id };
}

function requested(item: ElicitationRequest): SessionEvent {
  return { type: 'elicitation_requested', request: item };
}

function play(state: ElicitationState, ...events: SessionEvent[]): ElicitationState {
  return events.reduce(reduce, state);
}

function field(kind: ElicitationField['kind'], more: Partial<ElicitationField> = {}) {
  return { name: 'f', kind, required: false, options: [], ...more } satisfies ElicitationField;
}

const CHOICES = [
  { value: 'a', label: 'A' },
  { value: 'b', label: 'B' },
  { value: 'c', label: 'C' },
];

/** A fixed zone: one hour east of UTC. */
const PARIS = () => 60;

describe('the elicitation queue', () => {
  it('shows the first request and keeps the others waiting, in order', () => {
    const state = play(EMPTY_ELICITATIONS, requested(request('a')), requested(request('b')));
    expect(current(state)?.request_id).toBe('a');
    expect(waiting(state)).toBe(1);
    expect(current(EMPTY_ELICITATIONS)).toBeNull();
    expect(waiting(EMPTY_ELICITATIONS)).toBe(0);
  });

  it('updates a request asked again where it is, never twice', () => {
    const again = { ...request('a'), message: 'changed' };
    const state = play(
      EMPTY_ELICITATIONS,
      requested(request('a')),
      requested(request('b')),
      requested(again),
    );
    expect(state.queue.map((item) => item.request_id)).toEqual(['a', 'b']);
    expect(current(state)?.message).toBe('changed');
  });

  it('drops a request resolved anywhere, and ignores one it does not hold', () => {
    let state = play(EMPTY_ELICITATIONS, requested(request('a')), requested(request('b')));
    state = play(state, { type: 'elicitation_resolved', request_id: 'a', action: 'cancel' });
    expect(state.queue.map((item) => item.request_id)).toEqual(['b']);
    const same = play(state, { type: 'elicitation_resolved', request_id: 'x', action: 'accept' });
    expect(same).toBe(state);
  });

  it('leaves the state as it is for every other event', () => {
    const state = play(EMPTY_ELICITATIONS, requested(request('a')));
    expect(play(state, { type: 'agent_start' })).toBe(state);
    expect(play(state, { type: 'permission_resolved', request_id: 'a', decision: 'deny' })).toBe(
      state,
    );
  });

  it('puts a session’s requests back in front, those arrived since behind, none twice', () => {
    const state = play(EMPTY_ELICITATIONS, requested(request('c')), requested(request('a')));
    const restored = withRestored(state, [request('a'), request('b')]);
    expect(restored.queue.map((item) => item.request_id)).toEqual(['a', 'b', 'c']);
    expect(withRestored(state, [])).toBe(state);
  });

  it('says what an answer did, here and elsewhere', () => {
    expect(answeredText('accept', 'github')).toBe('Sent your answer to github.');
    expect(answeredText('decline', 'github')).toBe('Declined github’s question.');
    expect(answeredText('cancel', 'github')).toBe('Dismissed github’s question.');
    expect(resolvedElsewhereText('accept', 'github')).toBe(
      'github’s question was answered elsewhere.',
    );
    expect(resolvedElsewhereText('decline', 'github')).toContain('declined elsewhere');
    expect(resolvedElsewhereText('cancel', 'github')).toContain('its call ended');
  });
});

describe('the form’s fields', () => {
  it('are named by their title, else their name', () => {
    expect(fieldLabel(field('text', { title: 'Your name' }))).toBe('Your name');
    expect(fieldLabel(field('text', { title: '  ' }))).toBe('f');
    expect(fieldLabel(field('text', { title: null }))).toBe('f');
  });

  it('take the browser’s control for their kind and format', () => {
    expect(inputType(field('text'))).toBe('text');
    expect(inputType(field('text', { format: 'email' }))).toBe('email');
    expect(inputType(field('text', { format: 'uri' }))).toBe('url');
    expect(inputType(field('text', { format: 'date' }))).toBe('date');
    expect(inputType(field('text', { format: 'date-time' }))).toBe('datetime-local');
    expect(inputType(field('text', { format: 'hostname' }))).toBe('text');
    expect(inputType(field('integer'))).toBe('number');
    expect(inputType(field('number'))).toBe('number');
  });

  it('show an option’s hidden characters as markers', () => {
    expect(visibleOptionLabel({ value: 'x', label: 'a\u202Eb' })).toBe('a\\u{202E}b');
  });
});

describe('the form’s starting values', () => {
  it('come from the request’s initial answer, in the fields’ order', () => {
    expect(startValues(ELICITATION_REQUEST)).toEqual([
      'John Doe',
      '',
      '',
      '30',
      '95.5',
      'active',
      true,
      [],
    ]);
  });

  it('fall back on a field’s default, and the initial answer wins over it', () => {
    expect(startValue(field('text', { default: 'd' }), {})).toBe('d');
    expect(startValue(field('text', { default: 'd' }), { f: 'i' })).toBe('i');
    expect(startValue(field('boolean', { default: true }), {})).toBe(true);
    expect(startValue(field('boolean'), {})).toBe(false);
    // `initial`'s prototype is never read as a value.
    expect(startValue({ ...field('text'), name: 'toString' }, {})).toBe('');
  });

  it('leave out a default that does not fit its field', () => {
    expect(startValue(field('integer'), { f: '12' })).toBe('');
    expect(startValue(field('number'), { f: null })).toBe('');
    expect(startValue(field('text'), { f: 5 })).toBe('');
    expect(startValue(field('boolean'), { f: 'true' })).toBe(false);
    expect(startValue(field('choice', { options: CHOICES }), { f: 'z' })).toBe('');
    expect(startValue(field('choices', { options: CHOICES }), { f: ['a', 'z', 3, 'c'] })).toEqual([
      'a',
      'c',
    ]);
    expect(startValue(field('choices', { options: CHOICES }), { f: 'a' })).toEqual([]);
  });

  it('show a date-time in the person’s zone, the same instant', () => {
    const start = startValue(field('text', { format: 'date-time' }), {
      f: '2026-11-28T10:30:00Z',
    });
    expect(start).toMatch(/^2026-11-2\dT\d{2}:\d{2}$/);
    expect(Date.parse(zonedDateTime(start as string))).toBe(Date.parse('2026-11-28T10:30:00Z'));
    expect(localDateTime('2026-11-28T10:30')).toBe('2026-11-28T10:30');
    expect(localDateTime('tomorrow')).toBe('');
    expect(localDateTime('1700000000')).toBe('');
  });
});

describe('reading a number', () => {
  it.each([
    ['12', 12],
    ['-0.5', -0.5],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    [' 7 ', 7],
  ])('%j is %d', (raw, number) => {
    expect(parseNumber(raw)).toBe(number);
  });

  it.each(['', ' ', '0x10', 'Infinity', '1,5', 'abc', '1e999', '--1', BAD_NUMBER])(
    '%j is none',
    (raw) => {
      expect(parseNumber(raw)).toBeNull();
    },
  );
});

describe('the shape of a format, as Rust checks it', () => {
  it.each([
    ['email', 'a@b.org', true],
    ['email', 'nobody', false],
    ['email', '@b.org', false],
    ['email', 'a@localhost', false],
    ['uri', 'https://example.com', true],
    ['uri', 'mailto:a@b.org', true],
    ['uri', 'example.com', false],
    ['uri', 'https:', false],
    ['uri', '1http://x', false],
    ['uri', ':x', false],
    ['date', '2026-11-28', true],
    ['date', '2026-1-28', false],
    ['date', '28-11-2026', false],
    ['date', '2026-11-2x', false],
    ['date-time', '2026-11-28T10:30', true],
    ['date-time', '2026-11-28t10:30:00Z', true],
    ['date-time', '2026-11-28T10', false],
    ['date-time', '2026-11-28 10:30', false],
    ['hostname', 'anything', true],
  ])('%s %j: %s', (format, text, ok) => {
    expect(looksLike(format, text)).toBe(ok);
  });
});

describe('a field’s value read for sending', () => {
  it('is typed: text, numbers, booleans, a choice and a list of choices', () => {
    expect(readField(field('text'), 'hi')).toEqual({ value: 'hi' });
    expect(readField(field('number'), '95.5')).toEqual({ value: 95.5 });
    expect(readField(field('integer'), '41')).toEqual({ value: 41 });
    expect(readField(field('integer'), '1e3')).toEqual({ value: 1000 });
    expect(readField(field('boolean'), false)).toEqual({ value: false });
    expect(readField(field('choice', { options: CHOICES }), 'b')).toEqual({ value: 'b' });
    expect(readField(field('choices', { options: CHOICES }), ['c', 'a'])).toEqual({
      value: ['c', 'a'],
    });
  });

  it('is left out when an optional field is empty, and required when it is not optional', () => {
    for (const kind of ['text', 'number', 'integer', 'choice'] as const) {
      expect(readField(field(kind), '')).toEqual({ value: undefined });
      expect(readField(field(kind, { required: true }), '')).toEqual({ problem: 'Required.' });
    }
    expect(readField(field('choices', { options: CHOICES }), [])).toEqual({ value: undefined });
    // Present, as Rust reads "required": an empty list, unless a minimum says otherwise.
    expect(readField(field('choices', { options: CHOICES, required: true }), [])).toEqual({
      value: [],
    });
  });

  it('refuses what is not a number, or not a whole one', () => {
    expect(readField(field('number'), 'abc')).toEqual({ problem: 'Expected a number.' });
    expect(readField(field('number'), BAD_NUMBER)).toEqual({ problem: 'Expected a number.' });
    expect(readField(field('integer'), '12.5')).toEqual({ problem: 'Expected a whole number.' });
    expect(readField(field('integer'), '9007199254740993')).toEqual({
      problem: 'Expected a whole number.',
    });
  });

  it('keeps numbers within their bounds', () => {
    const age = field('integer', { minimum: 0, maximum: 150 });
    expect(readField(age, '-1')).toEqual({ problem: 'At least 0.' });
    expect(readField(age, '151')).toEqual({ problem: 'At most 150.' });
    expect(readField(age, '150')).toEqual({ value: 150 });
    expect(readField(field('number', { minimum: 0.5 }), '0.25')).toEqual({
      problem: 'At least 0.5.',
    });
  });

  it('keeps a text’s length within its bounds, counted in characters', () => {
    const name = field('text', { minimum: 2, maximum: 3 });
    expect(readField(name, 'a')).toEqual({ problem: 'At least 2 characters.' });
    expect(readField(name, 'abcd')).toEqual({ problem: 'At most 3 characters.' });
    // Three characters, six UTF-16 units.
    expect(readField(name, '😀😀😀')).toEqual({ value: '😀😀😀' });
    expect(readField(field('text', { minimum: 1, maximum: 1 }), 'ab')).toEqual({
      problem: 'At most 1 character.',
    });
  });

  it('checks a text’s format', () => {
    expect(readField(field('text', { format: 'email' }), 'nobody')).toEqual({
      problem: 'Not an email address (name@example.com).',
    });
    expect(readField(field('text', { format: 'uri' }), 'example.com')).toMatchObject({
      problem: expect.stringContaining('https://'),
    });
    expect(readField(field('text', { format: 'date' }), '28/11/2026')).toEqual({
      problem: 'Not a date (YYYY-MM-DD).',
    });
    expect(readField(field('text', { format: 'date' }), '2026-11-28')).toEqual({
      value: '2026-11-28',
    });
  });

  it('sends a date-time with seconds and the person’s zone', () => {
    const when = field('text', { format: 'date-time' });
    expect(readField(when, '2026-11-28T10:30', PARIS)).toEqual({
      value: '2026-11-28T10:30:00+01:00',
    });
    expect(readField(when, '2026-11-28T10:30:15.5', () => 0)).toEqual({
      value: '2026-11-28T10:30:15.5Z',
    });
    expect(readField(when, '2026-11-28T10:30', () => -330)).toEqual({
      value: '2026-11-28T10:30:00-05:30',
    });
    // Typed with a zone already: sent as it is.
    expect(readField(when, '2026-11-28T10:30:00Z', PARIS)).toEqual({
      value: '2026-11-28T10:30:00Z',
    });
    expect(readField(when, 'soon')).toEqual({ problem: 'Not a date and time.' });
  });

  it('refuses what is not one of the options, and too few or too many', () => {
    expect(readField(field('choice', { options: CHOICES }), 'z')).toEqual({
      problem: 'Not one of the options.',
    });
    expect(readField(field('choices', { options: CHOICES }), ['a', 'z'])).toEqual({
      problem: 'Not one of the options.',
    });
    const some = field('choices', { options: CHOICES, minimum: 2, maximum: 2 });
    expect(readField(some, ['a'])).toEqual({ problem: 'Choose at least 2 options.' });
    expect(readField(some, ['a', 'b', 'c'])).toEqual({ problem: 'Choose at most 2 options.' });
    expect(readField(field('choices', { options: CHOICES, maximum: 1 }), ['a', 'b'])).toEqual({
      problem: 'Choose at most 1 option.',
    });
  });
});

describe('the form’s answer', () => {
  it('sends the starting values as the server gave them, typed', () => {
    const values = startValues(ELICITATION_REQUEST);
    values[1] = 'needed for the release';
    expect(formAnswer(ELICITATION_REQUEST.fields, values)).toEqual({
      content: {
        name: 'John Doe',
        reason: 'needed for the release',
        age: 30,
        score: 95.5,
        status: 'active',
        verified: true,
      },
    });
  });

  it('lists every field’s problem, in the fields’ order, and sends nothing', () => {
    const values: FieldValue[] = [
      'J',
      '',
      'nobody',
      '12.5',
      'x',
      'gone',
      false,
      ['bug', 'docs', 'ci'],
    ];
    const answer = formAnswer(ELICITATION_REQUEST.fields, values);
    const expected = [
      'At least 2 characters.',
      'Required.',
      'Not an email address (name@example.com).',
      'Expected a whole number.',
      'Expected a number.',
      'Not one of the options.',
      null,
      'Choose at most 2 options.',
    ];
    expect(answer).toEqual({ problems: expected });
    expect(problems(ELICITATION_REQUEST.fields, values)).toEqual(expected);
  });

  it('keeps a field named like a prototype key as a key of its own', () => {
    const fields = [{ ...field('text'), name: '__proto__' }];
    const answer = formAnswer(fields, ['x']);
    expect('content' in answer && Object.keys(answer.content)).toEqual(['__proto__']);
    expect('content' in answer && JSON.stringify(answer.content)).toBe('{"__proto__":"x"}');
  });

  it('reads a missing value as the field’s empty one', () => {
    expect(formAnswer([field('boolean'), field('text')], [])).toEqual({ content: { f: false } });
  });
});
