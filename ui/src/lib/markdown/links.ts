// Which link targets the UI may open: only absolute http(s) URLs, in the system browser, after a
// click. Everything else (javascript:, data:, vbscript:, file:, relative links…) stays text.

/** The URL to open, or `null` when it must not be opened. */
export function safeHref(raw: string): string | null {
  const href = raw.trim();
  // Control characters are how scheme filters get bypassed (`java\tscript:`): the URL parser
  // drops some of them silently, so refuse rather than clean.
  for (const ch of href) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return null;
  }
  // Absolute URLs only: no base, so a relative link fails to parse.
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // `https://trusted.example@evil.example` reads as one host and goes to another.
  if (url.username !== '' || url.password !== '') return null;
  return url.href;
}
