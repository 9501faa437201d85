import { describe, expect, it } from 'vitest';
import { afterInteractionCheck, type InteractionStatus } from '../../portal/src/login/interaction-check.ts';

/** What /login does with GET /auth/interaction/:uid/status's answer before it shows its form. */
describe('afterInteractionCheck', () => {
  const search = '?client_id=app&interaction=abc';
  it.each<{ status: InteractionStatus | null; outcome: ReturnType<typeof afterInteractionCheck> }>([
    { status: { state: 'active', resumable: true }, outcome: { next: 'resume', href: '/auth/interaction/abc' } },
    { status: { state: 'active', resumable: false }, outcome: { next: 'sign-in' } },
    { status: { state: 'active' }, outcome: { next: 'sign-in' } },
    { status: null, outcome: { next: 'sign-in' } },
    { status: { state: 'ended', restart_uri: 'https://app.example/start' }, outcome: { next: 'restart', href: 'https://app.example/start' } },
    { status: { state: 'ended' }, outcome: { next: 'sign-in-alone', path: '/login?error=interaction_expired' } },
  ])('$status → $outcome.next', ({ status, outcome }) => {
    expect(afterInteractionCheck(status, search, true)).toEqual(outcome);
  });
});
