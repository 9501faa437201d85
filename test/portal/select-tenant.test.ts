import { createInstance } from 'i18next';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import type { AvailableTenantsResponse, TenantSummary } from '../../portal/src/api/types.ts';
import { TenantCard, TenantList } from '../../portal/src/login/select-tenant-page.tsx';
import { translate } from './translate.ts';

const i18n = createInstance();
await i18n.use(initReactI18next).init({ resources: { en: { translation: en }, sv: { translation: sv } }, lng: 'sv', interpolation: { escapeValue: false } });

/** The card as /login/select-tenant renders it (server-rendered: no effects run). */
function cardMarkup(tenant: TenantSummary): string {
  return renderToStaticMarkup(createElement(I18nextProvider, { i18n }, createElement(TenantCard, { tenant, accessed: {}, autoFocus: false })));
}

const tenant = (url: string | null): TenantSummary => ({ id: 't1', name: 'Acme Rekrytering', slug: 'acme', url });

describe('a tenant card of the tenant selection', () => {
  it('opens the tenant at its address', () => {
    expect(cardMarkup(tenant('https://acme.example.com/'))).toMatch(/^<a class="tenant-card" href="https:\/\/acme\.example\.com\/">/);
  });

  // The console creates tenants without an address (POST /api/tenants: name and slug).
  it('is no dead link when the tenant has no address yet, and says why', () => {
    const html = cardMarkup(tenant(null));
    expect(html).not.toMatch(/<a\b/);
    expect(html).toContain('Acme Rekrytering');
    expect(html).toContain(translate(sv, 'tenants.no_address'));
    expect(translate(sv, 'tenants.no_address')).not.toBe(translate(en, 'tenants.no_address'));
  });
});

/** The whole selection as the page renders it for `answer` (server-rendered: no effects run). */
function listMarkup(answer: AvailableTenantsResponse): string {
  const props = { answer, tenants: answer.tenants, accessed: {}, email: 'anna@example.se' };
  return renderToStaticMarkup(createElement(I18nextProvider, { i18n }, createElement(TenantList, props)));
}

/** The page's buttons, by their text. */
const buttons = (html: string) => [...html.matchAll(/<button\b[^>]*>(?:<span[^>]*><\/span>)?([^<]*)<\/button>/g)].map((match) => match[1]);

describe('the tenant selection offers another account', () => {
  const signOut = translate(sv, 'tenants.sign_out');

  it('to a person whose account has no tenants yet: the way on, beside saying so', () => {
    const html = listMarkup({ tenants: [], is_stakeholder: false });
    expect(html).toContain(translate(sv, 'tenants.empty'));
    expect(buttons(html)).toContain(signOut);
    expect(signOut).not.toBe(translate(en, 'tenants.sign_out'));
  });

  it.each([
    ['a person with tenants', { tenants: [tenant('https://acme.example.com/')], is_stakeholder: false }],
    ['a stakeholder without tenants', { tenants: [], is_stakeholder: true }],
  ])('to %s too', (_name, answer) => {
    expect(buttons(listMarkup(answer))).toContain(signOut);
  });
});
