import { createInstance } from 'i18next';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ListStatus } from '../../portal/src/admin/list-status.tsx';
import { loadReducer } from '../../portal/src/admin/load-status.ts';
import { ApiError } from '../../portal/src/api/client.ts';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import { translate } from './translate.ts';

const i18n = createInstance();
await i18n.use(initReactI18next).init({ resources: { en: { translation: en } }, lng: 'en', interpolation: { escapeValue: false } });

const markup = (error: unknown) =>
  renderToStaticMarkup(createElement(I18nextProvider, { i18n, children: createElement(ListStatus, { status: 'failed', failedMessage: 'Failed to load tokens', error }) }));

/**
 * A console list that failed to load (tenants, tenant users, tokens, invoice, notifications'
 * tenants) says why when the answer tells, as the accounts page does: those reads spend the
 * operator's search budget, and "Failed to load" alone left the operator retrying into the 429.
 */
describe('a console list that failed to load', () => {
  it('keeps what the request threw', () => {
    const error = new ApiError(429, 'Too Many Requests', [{ type: 'too_many_requests', msg: 'Too many requests' }], 300);
    expect(loadReducer({ status: 'loading', data: ['a'] }, { type: 'failure', error })).toEqual({ status: 'failed', data: null, error });
  });

  it('says how long to wait after a spent budget', () => {
    const html = markup(new ApiError(429, 'Too Many Requests', [{ type: 'too_many_requests', msg: 'Too many requests' }], 300));
    expect(html).toContain('Failed to load tokens');
    expect(html).toContain(translate(en, 'admin.retry_in_minutes_other').replace('{{count}}', '5'));
  });

  it('says only that it failed when the answer tells nothing more (a network error)', () => {
    const html = markup(new TypeError('Failed to fetch'));
    expect(html).toContain('Failed to load tokens');
    expect(html).not.toContain(translate(en, 'admin.retry_in_minutes_other').replace('{{count}}', '5'));
  });
});
