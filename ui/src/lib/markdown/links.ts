// Which link targets the UI may open: only http(s), in the system browser, after a click.

/** The URL to open, or `null` when it must not be opened (javascript:, data:, relative…). */
export function safeHref(raw: string): string | null {
  const href = raw.trim();
  // Control characters and whitespace inside a scheme are how filters get bypassed.
  if ([...href].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.href;
}
