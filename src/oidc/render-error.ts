import type { KoaContextWithOIDC } from 'oidc-provider';

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The page a person sees when an authorization request cannot be redirected back to the client
 * (unknown client, bad redirect_uri): the RFC 6749 error code and description, nothing internal.
 */
export async function renderError(
  ctx: KoaContextWithOIDC,
  out: { error: string; error_description?: string },
  _error: Error,
): Promise<void> {
  ctx.type = 'html';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in error</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2937}code{background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}</style>
</head><body><h1>Sign-in could not continue</h1>
<p><code>${escape(out.error)}</code></p>
${out.error_description ? `<p>${escape(out.error_description)}</p>` : ''}
<p><a href="/login">Back to sign-in</a></p></body></html>`;
}
