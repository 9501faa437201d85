import { createInstance } from 'i18next';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { Router } from 'wouter';
import type { AdminAccount } from '../../portal/src/api/admin.ts';
import { AccountRow } from '../../portal/src/admin/accounts/account-row.tsx';
import { TokensPage } from '../../portal/src/admin/tokens/tokens-page.tsx';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };

const i18n = createInstance();
await i18n.use(initReactI18next).init({ resources: { en: { translation: en } }, lng: 'en', interpolation: { escapeValue: false } });

/** The row as the console renders it at /admin/accounts (server-rendered: no effects run). */
function rowMarkup(account: AdminAccount): string {
  const row = createElement(AccountRow, { account, onChange: () => undefined });
  return renderToStaticMarkup(createElement(I18nextProvider, { i18n, children: createElement(Router, { base: '/admin', ssrPath: '/admin/accounts', children: row }) }));
}

const account: AdminAccount = {
  id: '5b0c2f7e-3d51-4c1a-9a3e-2f6a1f0e8d11',
  name: 'Tove Tenantless',
  email: 'tove+help@example.com',
  image: null,
  is_user: false,
  is_stakeholder: true,
  last_login_at: null,
  locked_until: null,
  available_credentials: [],
  tenant_access: [],
};

describe('an account row of the console', () => {
  it("links to the account's sessions and tokens, also for a person without tenant access", () => {
    const html = rowMarkup(account);
    const link = /<a [^>]*href="([^"]+)"[^>]*>Access tokens<\/a>/.exec(html);
    expect(link?.[1]).toBe(`/admin/tokens/tove%2Bhelp%40example.com/${account.id}?back=accounts`);
    expect(link?.[0]).toContain('aria-label="Access tokens of tove+help@example.com"');
  });

  it('the tokens page opened from an account row leads back to the accounts, from a tenant back to the tenants', () => {
    const page = (search: string) =>
      renderToStaticMarkup(
        createElement(I18nextProvider, {
          i18n,
          children: createElement(Router, { base: '/admin', ssrPath: `/admin/tokens/x/${account.id}`, ssrSearch: search, children: createElement(TokensPage, { email: account.email, accountId: account.id }) }),
        }),
      );
    expect(page('back=accounts')).toContain('<a href="/admin/accounts">Back to accounts</a>');
    expect(page('')).toContain('<a href="/admin/tenants">Back to tenants</a>');
    expect(page('')).not.toContain('Back to accounts');
  });
});
