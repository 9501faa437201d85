/**
 * A short, readable name for a browser from its User-Agent: the browser and the system (`Chrome`
 * and `macOS` → "Chrome on macOS"). One table for the portal (remembered devices, sessions,
 * passkeys; it imports this file) and the server's security notices, so both name a browser alike.
 * Brand names are not translated; the page or the mail joins them.
 */
export interface DeviceName {
  browser: string | null;
  os: string | null;
}

/** First match wins: Edge, Opera and Samsung Internet also say "Chrome", and Chrome also says "Safari". */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

/** iPhone and iPad before macOS (they say "like Mac OS X"); Android before Linux. */
const SYSTEMS: readonly [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

function firstMatch(text: string, table: readonly [RegExp, string][]): string | null {
  return table.find(([pattern]) => pattern.test(text))?.[1] ?? null;
}

export function deviceName(userAgent: string | null | undefined): DeviceName {
  // Past 512 characters a User-Agent is nobody's real browser; the patterns need not read it all.
  const text = userAgent?.slice(0, 512) ?? '';
  return { browser: firstMatch(text, BROWSERS), os: firstMatch(text, SYSTEMS) };
}
