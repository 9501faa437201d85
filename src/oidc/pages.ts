import type { KoaContextWithOIDC } from 'oidc-provider';
import { uiLanguage } from './ui-locales.ts';

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const texts = {
  en: {
    errorTitle: 'Sign-in could not continue',
    back: 'Back to sign-in',
    logoutTitle: 'Sign out of Nyckel?',
    logoutBody: 'You will be signed out of Nyckel and of the applications you opened with it.',
    logoutYes: 'Yes, sign me out',
    logoutNo: 'No, stay signed in',
    logoutAppOnly: (app: string) => `No, only sign me out of ${app}`,
    doneTitle: 'You are signed out',
    doneBody: 'You can close this page.',
  },
  sv: {
    errorTitle: 'Inloggningen kunde inte fortsätta',
    back: 'Tillbaka till inloggningen',
    logoutTitle: 'Logga ut från Nyckel?',
    logoutBody: 'Du loggas ut från Nyckel och från de program du öppnat med det.',
    logoutYes: 'Ja, logga ut mig',
    logoutNo: 'Nej, förbli inloggad',
    logoutAppOnly: (app: string) => `Nej, logga bara ut mig från ${app}`,
    doneTitle: 'Du är utloggad',
    doneBody: 'Du kan stänga den här sidan.',
  },
} as const;

/** Swedish when the request asks for it (ui_locales, then Accept-Language), else English. */
function language(ctx: KoaContextWithOIDC): keyof typeof texts {
  return uiLanguage(ctx.oidc?.params?.ui_locales) ?? (ctx.acceptsLanguages('en', 'sv') === 'sv' ? 'sv' : 'en');
}

/**
 * The few pages oidc-provider renders itself, in Nyckel's look and language. Self-contained: no
 * fonts or scripts from other hosts on an identity provider's pages.
 */
function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  // No other site may frame them (the logout button would be a click away from a hidden frame),
  // and they load nothing. No form-action: the logout form's answer redirects to the relying
  // party, and browsers apply form-action to that redirect too.
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'");
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = `<!doctype html>
<html lang="${language(ctx)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f5f6f8;color:#1f2937;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:2rem;max-width:26rem;width:calc(100% - 2rem)}
h1{font-size:1.35rem;margin:0 0 1rem}code{background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}
button{display:block;width:100%;font:inherit;font-weight:600;padding:.7rem;margin-top:.75rem;border-radius:8px;border:1px solid #2563eb;cursor:pointer}
button[value=yes]{background:#2563eb;color:#fff}button:not([value]){background:#fff;color:#2563eb}
a{color:#2563eb}
</style></head><body><main>${body}</main></body></html>`;
}

/**
 * Shown when an authorization request cannot be redirected back to the client (unknown client,
 * bad redirect_uri): the RFC 6749 error code and description, nothing internal.
 */
export async function renderError(
  ctx: KoaContextWithOIDC,
  out: { error: string; error_description?: string },
  _error: Error,
): Promise<void> {
  const t = texts[language(ctx)];
  page(
    ctx,
    t.errorTitle,
    `<h1>${t.errorTitle}</h1><p><code>${escape(out.error)}</code></p>
${out.error_description ? `<p>${escape(out.error_description)}</p>` : ''}
<p><a href="/login">${t.back}</a></p>`,
  );
}

/**
 * RP-initiated logout's confirmation; `form` is oidc-provider's hidden form with its xsrf token.
 * "Yes" (logout=yes) ends the Nyckel session and every application's sign-in through it
 * (provider.ts). The other answer keeps the Nyckel session; when an application asked, oidc-provider
 * still signs the person out of that one (revokes its grant), and the button says so.
 */
export async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const t = texts[language(ctx)];
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
  const t = texts[language(ctx)];
  page(ctx, t.doneTitle, `<h1>${t.doneTitle}</h1><p>${t.doneBody}</p><p><a href="/login">${t.back}</a></p>`);
}
