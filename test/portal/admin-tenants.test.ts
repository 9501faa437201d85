import { describe, expect, it } from 'vitest';
import type { SettingEntry } from '../../portal/src/api/admin.ts';
import {
  deriveSmsSettings,
  MAX_CREDITS_PER_ADD,
  parseCreditsToAdd,
  smsEnabledSetting,
  smsInfoDraft,
  smsInfoSetting,
  smsPausedSetting,
  smsSignatureSetting,
  smsStatus,
  withSetting,
} from '../../portal/src/admin/tenants/sms-settings.ts';
import { isValidSlug, newTenantProblems, slugFromName } from '../../portal/src/admin/tenants/tenant-slug.ts';
import { filterTenantUsers, narrowedFrom, TENANT_USERS_LIMIT, tokensPath } from '../../portal/src/admin/tenants/user-search.ts';
import en from '../../portal/src/i18n/en.json' with { type: 'json' };
import sv from '../../portal/src/i18n/sv.json' with { type: 'json' };
import { translate } from './translate.ts';

describe('tenant slug derived from the name (spec section 5)', () => {
  it.each([
    ['Acme', 'acme'],
    ['Acme Recruiting AB', 'acmerecruitingab'],
    ['Åre Bygg & Co.', 'arebyggco'],
    ['Göteborgs Stad 2', 'goteborgsstad2'],
    ['  --  ', ''],
    ['ÆØ 🚀 x', 'x'],
    ['ﬁne', 'fine'],
  ])('%s → %s', (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
  });

  it.each([
    ['acme', true],
    ['acme2', true],
    ['Acme', false],
    ['acme-ab', false],
    ['acme ab', false],
    ['', false],
    ['åre', false],
  ])('slug %s valid: %s', (slug, valid) => {
    expect(isValidSlug(slug)).toBe(valid);
  });

  it.each([
    ['Acme', 'acme', []],
    ['', 'acme', ['name_required']],
    ['  ', '', ['name_required', 'slug_required']],
    ['Acme', 'Acme-1', ['slug_invalid']],
  ] as const)('form %s / %s → %o', (name, slug, problems) => {
    expect(newTenantProblems(name, slug)).toEqual(problems);
  });
});

describe('SMS settings derived from info, system_sms and sms_sign (spec section 3)', () => {
  const info = { sender: 'Acme', warning_1: 500, warning_2: 100, paused: false, warned: true };

  it('reads every field', () => {
    const entries: SettingEntry[] = [
      { key: 'info', value: info },
      { key: 'system_sms', value: { value: true } },
      { key: 'sms_sign', value: { name: 'Anna Svensson' } },
    ];
    expect(deriveSmsSettings(entries, 1234)).toEqual({
      sender: 'Acme',
      credits: 1234,
      warning1: 500,
      warning2: 100,
      signature: 'Anna Svensson',
      warned: true,
      deactivatesAt: null,
      enabled: true,
      paused: false,
      waitingForSignature: false,
    });
  });

  it.each<[string, SettingEntry[], Partial<ReturnType<typeof deriveSmsSettings>>]>([
    ['no settings: disabled, nothing known', [], { enabled: false, paused: false, sender: null, signature: null, waitingForSignature: false }],
    ['enabled without a signature: waiting for signature', [{ key: 'system_sms', value: { value: true } }], { enabled: true, waitingForSignature: true }],
    ['an empty signature counts as none', [{ key: 'system_sms', value: { value: true } }, { key: 'sms_sign', value: { name: ' ' } }], { waitingForSignature: true, signature: null }],
    ['disabled without a signature is not waiting', [{ key: 'system_sms', value: { value: false } }], { enabled: false, waitingForSignature: false }],
    ['values as JSON text', [{ key: 'info', value: JSON.stringify({ ...info, paused: true }) }, { key: 'system_sms', value: '{"value":true}' }], { paused: true, enabled: true, sender: 'Acme' }],
    ['numbers as text', [{ key: 'info', value: { warning_1: '50', warning_2: 'x' } }], { warning1: 50, warning2: null }],
    ['unreadable JSON counts as missing', [{ key: 'info', value: '{oops' }, { key: 'system_sms', value: 'true' }], { sender: null, enabled: false }],
    ['deactivates_at when the server sends it', [{ key: 'info', value: { deactivates_at: '2025-01-01T00:00:00Z' } }], { deactivatesAt: '2025-01-01T00:00:00Z' }],
  ])('%s', (_name, entries, expected) => {
    expect(deriveSmsSettings(entries, null)).toMatchObject(expected);
  });

  it('credits: a number or nothing', () => {
    expect(deriveSmsSettings([], 0).credits).toBe(0);
    expect(deriveSmsSettings([], undefined).credits).toBeNull();
  });

  it.each([
    [{ enabled: false, paused: true, waitingForSignature: false }, 'disabled'],
    [{ enabled: true, paused: true, waitingForSignature: true }, 'paused'],
    [{ enabled: true, paused: false, waitingForSignature: true }, 'waiting'],
    [{ enabled: true, paused: false, waitingForSignature: false }, 'active'],
  ])('status of %o is %s', (sms, status) => {
    expect(smsStatus(sms)).toBe(status);
  });

  it('enabling and disabling post system_sms', () => {
    expect(smsEnabledSetting(true)).toEqual({ key: 'system_sms', value: { value: true } });
    expect(smsEnabledSetting(false)).toEqual({ key: 'system_sms', value: { value: false } });
  });

  it('pausing posts the whole info with paused changed', () => {
    expect(smsPausedSetting([{ key: 'info', value: info }], true)).toEqual({ key: 'info', value: { ...info, paused: true } });
    expect(smsPausedSetting([{ key: 'info', value: JSON.stringify(info) }], false)).toEqual({ key: 'info', value: { ...info, paused: false } });
    expect(smsPausedSetting([], true)).toEqual({ key: 'info', value: { paused: true } });
  });

  it('an accepted setting replaces its key in place, or is added', () => {
    const entries = [
      { key: 'info', value: info },
      { key: 'system_sms', value: { value: false } },
    ];
    expect(withSetting(entries, { key: 'system_sms', value: { value: true } })).toEqual([
      { key: 'info', value: info },
      { key: 'system_sms', value: { value: true } },
    ]);
    expect(withSetting(entries, { key: 'sms_sign', value: { name: 'A' } })).toHaveLength(3);
    expect(entries[1]?.value).toEqual({ value: false });
  });

  it.each([
    ['100', 100],
    [' 5 ', 5],
    ['1000000', 1_000_000],
    ['0', null],
    ['-5', null],
    ['1.5', null],
    ['1e3', null],
    ['abc', null],
    ['', null],
    ['1000001', null],
  ])('credits to add %s → %s', (input, credits) => {
    expect(parseCreditsToAdd(input)).toBe(credits);
  });
});

describe('editing sender, warnings and signature', () => {
  const current: SettingEntry[] = [{ key: 'info', value: { sender: 'Acme', warning_1: 500, warning_2: 100, paused: true, warned: false } }];

  it('starts from the current info', () => {
    expect(smsInfoDraft(deriveSmsSettings(current, 0))).toEqual({ sender: 'Acme', warning1: '500', warning2: '100' });
    expect(smsInfoDraft(deriveSmsSettings([], 0))).toEqual({ sender: '', warning1: '', warning2: '' });
  });

  it('posts the whole info, keeping paused and warned', () => {
    expect(smsInfoSetting(current, { sender: ' Acme AB ', warning1: '300', warning2: '0' })).toEqual({
      entry: { key: 'info', value: { sender: 'Acme AB', warning_1: 300, warning_2: 0, paused: true, warned: false } },
    });
    expect(smsInfoSetting([], { sender: '+46701234567', warning1: '1', warning2: '2' })).toEqual({
      entry: { key: 'info', value: { sender: '+46701234567', warning_1: 1, warning_2: 2, paused: false, warned: false } },
    });
  });

  it.each([
    ['sender longer than 11', { sender: 'Acme Recruiting', warning1: '1', warning2: '1' }, ['sender']],
    ['sender of digits only and short', { sender: '12', warning1: '1', warning2: '1' }, ['sender']],
    ['sender with å', { sender: 'Åre', warning1: '1', warning2: '1' }, ['sender']],
    ['empty', { sender: '', warning1: '', warning2: '' }, ['sender', 'warning_1', 'warning_2']],
    ['negative and decimal warnings', { sender: 'Acme', warning1: '-1', warning2: '2.5' }, ['warning_1', 'warning_2']],
    ['warning above a million', { sender: 'Acme', warning1: '1000001', warning2: '0' }, ['warning_1']],
  ] as const)('refuses %s', (_name, draft, problems) => {
    expect(smsInfoSetting(current, draft)).toEqual({ problems });
  });

  it.each([
    ['Hälsningar, Acme', { key: 'sms_sign', value: { name: 'Hälsningar, Acme' } }],
    ['  Acme  ', { key: 'sms_sign', value: { name: 'Acme' } }],
    ['   ', null],
    ['x'.repeat(101), null],
  ])('signature %s', (signature, entry) => {
    expect(smsSignatureSetting(signature)).toEqual(entry);
  });
});

describe('the limits the SMS forms name', () => {
  // Seven digits in a row are hard to count: the limit is grouped as each language groups digits
  // (Swedish with a no-break space, so it never breaks over two lines).
  it.each([
    ['en', en, 'Enter a whole number from 1 to 1,000,000.', 'Enter a whole number from 0 to 1,000,000.'],
    ['sv', sv, 'Ange ett heltal från 1 till 1\u00a0000\u00a0000.', 'Ange ett heltal från 0 till 1\u00a0000\u00a0000.'],
  ])('%s: the largest amount, grouped', (language, catalogue, credits, warning) => {
    expect(translate(catalogue, 'admin.sms.credits_invalid')).toBe(credits);
    expect(translate(catalogue, 'admin.sms.warning_invalid')).toBe(warning);
    expect(credits).toContain(new Intl.NumberFormat(language).format(MAX_CREDITS_PER_ADD));
    expect(parseCreditsToAdd(String(MAX_CREDITS_PER_ADD))).toBe(MAX_CREDITS_PER_ADD);
  });
});

describe('tenant users search (from 3 characters)', () => {
  const users = [
    { id: '1', name: 'Bo Ek', email: 'bo@acme.se', active: true },
    { id: '2', name: 'Anna Al', email: 'anna@acme.se', active: false },
    { id: '3', name: 'Cilla Berg', email: 'cilla@other.se', active: true },
  ];
  const ids = (query: string) => filterTenantUsers(users, query).map((user) => user.id);

  it.each([
    ['empty: everyone, active first', '', ['1', '3', '2']],
    ['2 characters: no search yet', 'ci', ['1', '3', '2']],
    ['3 characters of a name', 'cil', ['3']],
    ['by email, case-insensitive', 'ACME.SE', ['1', '2']],
    ['no match', 'zzz', []],
    ['surrounding spaces are ignored', '  berg ', ['3']],
  ])('%s', (_name, query, expected) => {
    expect(ids(query)).toEqual(expected);
  });

  it('links to the tokens page as tokens/{email}/{account_id}', () => {
    expect(tokensPath('anna+x@acme.se', 'a1')).toBe('/tokens/anna%2Bx%40acme.se/a1');
  });
});

describe('a tenant user search typed on after a complete answer', () => {
  const user = (n: number) => ({ id: `u${n}`, name: `Maria ${n}`, email: `maria${n}@example.com`, active: true });
  const complete = { term: 'mar', users: [user(1), user(2)] };

  it.each([
    ['a longer term containing it', 'maria', true],
    ['the same term, other case and spaces', ' MAR ', true],
    ['a term containing it anywhere', 'omari', true],
    ['a shorter term', 'ma', false],
    ['another term', 'sven', false],
  ])('%s: answered here %s', (_name, term, local) => {
    expect(narrowedFrom(complete, term)).toEqual(local ? complete.users : null);
  });

  it('asks the server after an answer that may have held only the first matches, or none yet', () => {
    const capped = { term: 'mar', users: Array.from({ length: TENANT_USERS_LIMIT }, (_, i) => user(i)) };
    expect(narrowedFrom(capped, 'maria')).toBeNull();
    expect(narrowedFrom(null, 'maria')).toBeNull();
  });
});
