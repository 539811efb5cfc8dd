import { describe, expect, it } from 'vitest';
import { formatCost, formatTokens, plural, relativeTime } from './format';

describe('formats', () => {
  it('prices runs in dollars with enough digits to be useful', () => {
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(-1)).toBe('$0.00');
    expect(formatCost(Number.NaN)).toBe('$0.00');
    expect(formatCost(0.00042)).toBe('$0.0004');
    expect(formatCost(0.0421)).toBe('$0.042');
    expect(formatCost(12.345)).toBe('$12.35');
  });

  it('shortens token counts', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(1234)).toBe('1.2k');
    expect(formatTokens(128_000)).toBe('128k');
    expect(formatTokens(1_200_000)).toBe('1.2M');
  });

  it('says how long ago', () => {
    const now = 1_700_000_000_000;
    expect(relativeTime(now - 10_000, now)).toBe('just now');
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(relativeTime(now - 26 * 3_600_000, now)).toBe('yesterday');
    expect(relativeTime(now - 3 * 86_400_000, now)).toBe('3 days ago');
    expect(relativeTime(now + 60_000, now)).toBe('just now');
  });

  it('pluralises', () => {
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(0, 'message')).toBe('0 messages');
  });
});
