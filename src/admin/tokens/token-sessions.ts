/**
 * What the tokens view tells of a sign-in session, so an operator can tell a stranger's session
 * from the person's own: when it signed in and with what, when it was last used, from which
 * address and browser. Never an id, a token or anything else that would open the session.
 */
export interface SessionFacts {
  /** ISO 8601; null on entries that are not sign-in sessions, or when unknown. */
  signed_in_at: string | null;
  /** ISO 8601: a portal session's last use (recorded at most once a minute). */
  last_seen_at: string | null;
  /** RFC 8176 methods of the sign-in (pwd, otp, mfa, ...). */
  methods: string[] | null;
  /** The client address at sign-in, as the portal session recorded it. */
  ip: string | null;
  user_agent: string | null;
}

export const noSession: SessionFacts = { signed_in_at: null, last_seen_at: null, methods: null, ip: null, user_agent: null };

const iso = (epochSeconds: number | null) => (epochSeconds !== null && Number.isFinite(epochSeconds) ? new Date(epochSeconds * 1000).toISOString() : null);

export function describeSession(
  times: { signedInAt: number | null; lastSeenAt: number | null; methods: string[] | null },
  where: { ip: string | null; user_agent: string | null } | null,
): SessionFacts {
  return {
    signed_in_at: iso(times.signedInAt),
    last_seen_at: iso(times.lastSeenAt),
    methods: times.methods,
    ip: where?.ip ?? null,
    user_agent: where?.user_agent ?? null,
  };
}
