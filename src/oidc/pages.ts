import type { ServerResponse } from 'node:http';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errorExplanation, pageTexts, type PageFlow, type PageLanguage } from './page-texts.ts';
import { pageLanguage } from './ui-locales.ts';

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Swedish when the request asks for it (ui_locales, then Accept-Language), else English. */
function language(ctx: KoaContextWithOIDC): PageLanguage {
  return pageLanguage(ctx.oidc?.params?.ui_locales, ctx.acceptsLanguages('en', 'sv'));
}

/**
 * No other site may frame these pages (the logout button would be a click away from a hidden
 * frame), and they load nothing. No form-action: the logout form's answer redirects to the relying
 * party, and browsers apply form-action to that redirect too.
 */
const pageHeaders = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The few pages oidc-provider renders itself (and the front channel's refusal, front-channel.ts),
 * in Nyckel's look and language. Self-contained: no fonts or scripts from other hosts on an
 * identity provider's pages.
 */
function htmlPage(language: PageLanguage, title: string, body: string): string {
  return `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f5f6f8;color:#1f2937;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:2rem;max-width:26rem;width:calc(100% - 2rem)}
h1{font-size:1.35rem;margin:0 0 1rem}code{background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}
button{display:block;width:100%;font:inherit;font-weight:600;padding:.7rem;margin-top:.75rem;border-radius:8px;border:1px solid #2563eb;cursor:pointer}
button[value=yes]{background:#2563eb;color:#fff}button:not([value]){background:#fff;color:#2563eb}
a{color:#2563eb}.reference{color:#6b7280;font-size:.8rem;margin-top:1.5rem;overflow-wrap:anywhere}
</style></head><body><main>${body}</main></body></html>`;
}

function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  ctx.set(pageHeaders);
  ctx.body = htmlPage(language(ctx), title, body);
}

/** The developers' line under a page: the OAuth error code and oidc-provider's English description, both escaped. */
function reference(language: PageLanguage, code: string, description?: string): string {
  return `<p class="reference">${escape(pageTexts[language].reference)} <code>${escape(code)}</code>${description ? ` ${escape(description)}` : ''}</p>`;
}

/** RP-initiated logout's routes (end_session, its confirm and its success) are a sign-out; every other route a sign-in. */
const flowOf = (route: string | undefined): PageFlow => (route?.startsWith('end_session') ? 'sign-out' : 'sign-in');

/**
 * The error page's title and body: what happened and what to do in the person's language, then
 * the error for the application's developers. The code and description are printed escaped, as
 * everything here is: none of their text can become markup on Nyckel's origin.
 */
export function errorPage(language: PageLanguage, flow: PageFlow, out: { error: string; error_description?: string }): { title: string; body: string } {
  const t = pageTexts[language];
  const title = t.errorTitle[flow];
  // A sign-out that failed leaves the person signed in: there is no sign-in to go back to.
  const back = flow === 'sign-in' ? `<p><a href="/login">${escape(t.back)}</a></p>` : '';
  return {
    title,
    body: `<h1>${escape(title)}</h1><p>${escape(errorExplanation(language, flow, out.error, out.error_description))}</p>${back}
${reference(language, out.error, out.error_description)}`,
  };
}

/**
 * Shown when an authorization request cannot be redirected back to the client (unknown client,
 * bad redirect_uri), and for an error at RP-initiated logout in a browser: nothing internal.
 */
export async function renderError(
  ctx: KoaContextWithOIDC,
  out: { error: string; error_description?: string },
  _error: Error,
): Promise<void> {
  const { title, body } = errorPage(language(ctx), flowOf(ctx.oidc?.route), out);
  page(ctx, title, body);
}

/** A page answered outside oidc-provider (front-channel.ts), with the pages' headers and no caching. */
function sendPage(res: ServerResponse, status: number, language: PageLanguage, title: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(pageHeaders)) res.setHeader(name, value);
  res.end(htmlPage(language, title, body));
}

/**
 * A browser over its address's budget of authorizations and logouts (front-channel.ts): 429 with
 * Retry-After, as a page in the person's language rather than the JSON a relying party's code gets.
 */
export function sendTooManyAttempts(res: ServerResponse, language: PageLanguage, retryAfterSeconds: number): void {
  const t = pageTexts[language];
  res.setHeader('Retry-After', String(retryAfterSeconds));
  sendPage(res, 429, language, t.tooManyTitle, `<h1>${escape(t.tooManyTitle)}</h1><p>${escape(t.tooManyBody)}</p>\n${reference(language, 'slow_down')}`);
}

/**
 * A browser's authorization or logout refused before oidc-provider saw it (a parameter over its
 * cap, request-size.ts): the same error page oidc-provider's own refusals get, not JSON.
 */
export function sendErrorPage(res: ServerResponse, status: number, language: PageLanguage, flow: PageFlow, out: { error: string; error_description?: string }): void {
  const { title, body } = errorPage(language, flow, out);
  sendPage(res, status, language, title, body);
}

/** A browser's page request for a path nothing serves (error-handler.ts): a page, where an API caller gets JSON. */
export function sendNotFoundPage(res: ServerResponse, language: PageLanguage): void {
  const t = pageTexts[language];
  sendPage(res, 404, language, t.notFoundTitle, `<h1>${escape(t.notFoundTitle)}</h1><p>${escape(t.notFoundBody)}</p><p><a href="/login">${escape(t.back)}</a></p>`);
}

/**
 * RP-initiated logout's confirmation; `form` is oidc-provider's hidden form with its xsrf token.
 * "Yes" (logout=yes) ends the Nyckel session and every application's sign-in through it
 * (provider.ts). The other answer keeps the Nyckel session; when an application asked, oidc-provider
 * still signs the person out of that one (revokes its grant), and the button says so.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const t = pageTexts[language(ctx)];
  const app = ctx.oidc.client ? (ctx.oidc.client.clientName ?? ctx.oidc.client.clientId) : undefined;
  page(
    ctx,
    t.logoutTitle,
    `<h1>${t.logoutTitle}</h1><p>${t.logoutBody}</p>${form}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">${t.logoutYes}</button>
<button type="submit" form="op.logoutForm">${app === undefined ? t.logoutNo : escape(t.logoutAppOnly(app))}</button>`,
  );
}

/** After a logout with no post_logout_redirect_uri to return to. */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const t = pageTexts[language(ctx)];
  page(ctx, t.doneTitle, `<h1>${t.doneTitle}</h1><p>${t.doneBody}</p><p><a href="/login">${t.back}</a></p>`);
}
