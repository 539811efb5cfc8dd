// Small display formats shared by the sidebar and the chat header.

/** US dollars: cents for sums over a dollar, more digits below (agent runs cost fractions). */
export function formatCost(dollars: number): string {
  if (!Number.isFinite(dollars) || dollars <= 0) return '$0.00';
  if (dollars >= 1) return `$${dollars.toFixed(2)}`;
  if (dollars >= 0.01) return `$${dollars.toFixed(3)}`;
  return `$${dollars.toFixed(4)}`;
}

/** Token counts as people read them: 950, 12.3k, 1.2M. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(Math.max(0, Math.round(count)));
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", then the date. */
export function relativeTime(unixMs: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - unixMs) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return days === 1 ? 'yesterday' : `${days} days ago`;
  return new Date(unixMs).toLocaleDateString();
}

/** A count with its noun: "1 message", "3 messages". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
