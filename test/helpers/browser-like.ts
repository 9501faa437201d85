/**
 * A minimal browser for HTTP-level journeys: a cookie jar, manual redirect following, and the
 * Origin header a same-site page would send. Cookies are kept by name (one host under test).
 */
export class BrowserLike {
  readonly base: string;
  readonly cookies = new Map<string, string>();
  /** Names of the cookies that outlive the browser (Max-Age or Expires). */
  readonly #persistent = new Set<string>();

  constructor(base: string) {
    this.base = base;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  #remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') {
        this.cookies.delete(name);
        this.#persistent.delete(name);
      } else {
        this.cookies.set(name, value);
        if (attributes.some((a) => /^\s*(max-age|expires)=/i.test(a))) this.#persistent.add(name);
        else this.#persistent.delete(name);
      }
    }
  }

  /** Closes and reopens the browser: session cookies go, persistent ones stay. */
  restart(): void {
    for (const name of this.cookies.keys()) if (!this.#persistent.has(name)) this.cookies.delete(name);
  }

  isPersistent(name: string): boolean {
    return this.#persistent.has(name);
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, this.base);
    const headers = new Headers(init.headers);
    if (url.origin === new URL(this.base).origin && this.cookies.size) headers.set('cookie', this.cookieHeader());
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    if (url.origin === new URL(this.base).origin) this.#remember(response);
    return response;
  }

  async json<T = Record<string, unknown>>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    const response = await this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(this.base).origin },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /**
   * Follows redirects from `path` while they stay on this host; returns the first URL that
   * leaves it (e.g. the relying party's redirect_uri) or the final response of this host.
   */
  async follow(path: string, limit = 15): Promise<{ url: URL; response: Response }> {
    let url = new URL(path, this.base);
    if (url.origin !== new URL(this.base).origin) return { url, response: new Response(null, { status: 204 }) };
    for (let i = 0; i < limit; i += 1) {
      const response = await this.request(url.toString());
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url, response };
      url = new URL(location, url);
      if (url.origin !== new URL(this.base).origin) return { url, response };
    }
    throw new Error(`too many redirects from ${path}`);
  }

  /**
   * Follows redirects like a browser, also through pages of this host that submit a form by
   * themselves (oidc-provider's logout confirmation when one browser's provider session changes
   * person), until the browser leaves this host or lands on a page without a form. Answers where
   * it ended and the actions of the forms it posted.
   */
  async followThroughForms(start: string): Promise<{ url: URL; posted: string[] }> {
    const origin = new URL(this.base).origin;
    const posted: string[] = [];
    let { url, response } = await this.follow(start);
    for (let i = 0; i < 3 && url.origin === origin && response.status === 200; i += 1) {
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
      if (!action) break;
      const fields = new URLSearchParams();
      for (const input of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields.set(input[1]!, input[2]!);
      const answer = await this.request(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fields.toString(),
      });
      posted.push(new URL(action, url).pathname);
      ({ url, response } = await this.follow(new URL(answer.headers.get('location')!, new URL(action, url)).toString()));
    }
    return { url, posted };
  }
}
