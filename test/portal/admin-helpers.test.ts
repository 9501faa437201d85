import { describe, expect, it } from 'vitest';
import { ApiError } from '../../portal/src/api/client.ts';
import { consoleErrorKind, needsSecondFactor } from '../../portal/src/admin/admin-auth.ts';
import { capCount } from '../../portal/src/admin/count-badge.ts';
import { failureText } from '../../portal/src/admin/failure-text.ts';
import { moveHighlight } from '../../portal/src/admin/highlight.ts';
import { initialLoadState, loadReducer, type LoadAction, type LoadState } from '../../portal/src/admin/load-status.ts';
import { HIDDEN_MODAL, hideModal, showModal } from '../../portal/src/admin/modal-state.ts';
import { sortByName } from '../../portal/src/admin/sort-by-name.ts';
import { formatUtc } from '../../portal/src/admin/utc-time.ts';

const apiError = (status: number, type?: string) => new ApiError(status, 'x', type ? [{ type, msg: type }] : []);

describe('count badges cap at 99+', () => {
  it.each([
    [0, '0'],
    [1, '1'],
    [98, '98'],
    [99, '99'],
    [100, '99+'],
    [100_000, '99+'],
    [-3, '0'],
    [Number.NaN, '0'],
    [12.7, '12'],
  ])('%s → %s', (count, shown) => {
    expect(capCount(count)).toBe(shown);
  });
});

describe('the search highlight', () => {
  it.each([
    ['down from none starts at the first row', null, 1, 5, 0],
    ['up from none starts at the last row', null, -1, 5, 4],
    ['down moves on', 1, 1, 5, 2],
    ['up moves back', 2, -1, 5, 1],
    ['down past the end wraps to the first', 4, 1, 5, 0],
    ['up past the start wraps to the last', 0, -1, 5, 4],
    ['an out-of-range highlight starts again', 9, 1, 3, 0],
    ['an empty list has none', 0, 1, 0, null],
    ['a single row stays', 0, 1, 1, 0],
  ] as const)('%s', (_name, current, delta, length, next) => {
    expect(moveHighlight(current, delta, length)).toBe(next);
  });
});

describe('list load status (spec section 4)', () => {
  const loaded: LoadState<string[]> = { status: 'idle', data: ['a'] };
  it.each<[string, LoadState<string[]>, LoadAction<string[]>, LoadState<string[]>]>([
    ['a request starts: loading', initialLoadState(), { type: 'start' }, { status: 'loading', data: null }],
    ['success: idle with the data', { status: 'loading', data: null }, { type: 'success', data: ['b'] }, { status: 'idle', data: ['b'] }],
    ['error: failed, nothing kept', { status: 'loading', data: ['a'] }, { type: 'failure' }, { status: 'failed', data: null }],
    ['clearing empties', loaded, { type: 'clear' }, { status: 'idle', data: null }],
    ['a new search keeps the old rows until it answers', loaded, { type: 'start' }, { status: 'loading', data: ['a'] }],
    ['failed, then a new request: loading again', { status: 'failed', data: null }, { type: 'start' }, { status: 'loading', data: null }],
  ])('%s', (_name, state, action, next) => {
    expect(loadReducer(state, action)).toEqual(next);
  });

  it('starts idle and empty', () => {
    expect(initialLoadState()).toEqual({ status: 'idle', data: null });
  });
});

describe('modal state (spec sections 3 and 4)', () => {
  it('shows with title, content and warning', () => {
    expect(showModal('Delete credential', 'Really?', true)).toEqual({ modal: true, modalTitle: 'Delete credential', modalContent: 'Really?', warning: true });
    expect(showModal('Enable SMS', 'Sure?')).toMatchObject({ modal: true, warning: false });
  });

  it('hiding clears title and content', () => {
    expect(hideModal()).toEqual({ modal: false, modalTitle: '', modalContent: '', warning: false });
    expect(hideModal()).toBe(HIDDEN_MODAL);
  });
});

describe('deactivation time in UTC', () => {
  it.each([
    ['2025-03-01T14:05:59Z', '2025-03-01 14:05 UTC'],
    ['2025-03-01T15:05:00+01:00', '2025-03-01 14:05 UTC'],
    [null, null],
    [undefined, null],
    ['', null],
    ['not a date', null],
  ])('%s → %s', (at, shown) => {
    expect(formatUtc(at)).toBe(shown);
  });
});

describe('sorting by name', () => {
  it('ignores case and accents, orders numbers numerically, then the tie-breaker', () => {
    const items = [
      { name: 'beta', slug: 'b2' },
      { name: 'Alpha 10', slug: 'a10' },
      { name: 'alpha 9', slug: 'a9' },
      { name: 'Beta', slug: 'b1' },
      { name: 'Ängel', slug: 'x' },
    ];
    const sorted = sortByName(items, (item) => item.slug).map((item) => item.slug);
    expect(sorted).toEqual(['a9', 'a10', 'x', 'b1', 'b2']);
    expect(items[0]?.slug).toBe('b2');
  });
});

describe('what a failed console call means', () => {
  it.each([
    ['401 on a read', apiError(401), 'read', 'sign-in'],
    ['401 on a change', apiError(401), 'action', 'sign-in'],
    ['403 on a read (not an operator)', apiError(403, 'forbidden'), 'read', 'sign-in'],
    ['403 mfa-required on a read', apiError(403, 'operator/mfa-required'), 'read', 'sign-in'],
    ['403 mfa-required on a change', apiError(403, 'operator/mfa-required'), 'action', 'sign-in'],
    ['403 reauthentication-required on a change', apiError(403, 'operator/reauthentication-required'), 'action', 'sign-in'],
    ['403 on a change (role refused)', apiError(403, 'operator/role-required'), 'action', 'forbidden'],
    ['403 without a type on a change', apiError(403), 'action', 'forbidden'],
    ['409 on a change', apiError(409, 'credential/password-required'), 'action', 'other'],
    ['500', apiError(500), 'read', 'other'],
    ['network failure', apiError(0, 'network_error'), 'read', 'other'],
    ['not an API error', new Error('boom'), 'read', 'other'],
  ] as const)('%s → %s', (_name, error, mode, kind) => {
    expect(consoleErrorKind(error, mode)).toBe(kind);
  });

  it.each([
    ['403 mfa-required', apiError(403, 'operator/mfa-required'), true],
    ['403 reauthentication-required (sign-in too old for the action)', apiError(403, 'operator/reauthentication-required'), true],
    ['403 not an operator', apiError(403, 'forbidden'), false],
    ['401', apiError(401, 'unauthorized'), false],
    ['not an API error', new Error('operator/mfa-required'), false],
  ] as const)('the sign-in notice asks for a second factor after %s: %s', (_name, error, asked) => {
    expect(needsSecondFactor(error)).toBe(asked);
  });

  it('a role refusal, a spent budget or an unreachable service adds why to the failure message, as a sentence of its own', () => {
    const t = (key: string) =>
      ({ 'admin.role_refused': 'Not allowed.', 'errors.too_many_requests': 'Wait a moment.', 'admin.unavailable': 'Try again shortly.', 'admin.mail_undeliverable': 'Mail refused.' })[key]!;
    expect(failureText('Failed to send password reset email', apiError(503), t)).toBe('Failed to send password reset email. Try again shortly.');
    expect(failureText('Failed to unlock', apiError(403), t)).toBe('Failed to unlock. Not allowed.');
    expect(failureText('Failed to unlock', apiError(429), t)).toBe('Failed to unlock. Wait a moment.');
    // A message that already ends its sentence gets no second full stop.
    expect(failureText('Failed to save SMS settings.', apiError(429), t)).toBe('Failed to save SMS settings. Wait a moment.');
    expect(failureText('Failed to send password reset email', apiError(422, 'mail_undeliverable'), t)).toBe('Failed to send password reset email. Mail refused.');
    expect(failureText('Failed to save', apiError(422, 'validation_error'), t)).toBe('Failed to save');
    expect(failureText('Failed to unlock', apiError(409), t)).toBe('Failed to unlock');
    expect(failureText('Failed to unlock', new Error('x'), t)).toBe('Failed to unlock');
  });
});
