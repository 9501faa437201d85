import type { Queryable } from '../../accounts/accounts.repository.ts';

/** A passkey as stored: a `webauthn` row of the credentials table. */
export interface PasskeyRecord {
  id: string;
  account_id: string;
  /** The WebAuthn credential id, base64url. */
  credential_id: string;
  /** The COSE public key. */
  public_key: Uint8Array<ArrayBuffer>;
  /** The authenticator's signature counter at its last accepted use (0: it keeps none). */
  counter: number;
  transports: string[];
  aaguid: string | null;
  name: string | null;
  /**
   * Backup eligibility (the BE flag): `multiDevice` when the key may be synced to other devices,
   * `singleDevice` when it never leaves its authenticator. Null for a passkey stored without it.
   */
  device_type: PasskeyDeviceType | null;
  created_at: Date;
  last_used_at: Date | null;
}

export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

/** What the `data` column holds for a passkey. */
interface PasskeyData {
  name?: string;
  transports?: string[];
  aaguid?: string;
  device_type?: string;
  backed_up?: boolean;
}

interface PasskeyRow {
  id: string;
  account_id: string;
  subject: string;
  public_key: Uint8Array | null;
  counter: string | number;
  data: PasskeyData | string | null;
  created_at: Date;
  last_used_at: Date | null;
}

function toRecord(row: PasskeyRow): PasskeyRecord {
  // pg answers jsonb parsed and bigint as a string; PGlite may differ: normalise both.
  const data: PasskeyData = typeof row.data === 'string' ? (JSON.parse(row.data) as PasskeyData) : (row.data ?? {});
  return {
    id: row.id,
    account_id: row.account_id,
    credential_id: row.subject,
    public_key: Uint8Array.from(row.public_key ?? []),
    counter: Number(row.counter),
    transports: Array.isArray(data.transports) ? data.transports.filter((t): t is string => typeof t === 'string') : [],
    aaguid: typeof data.aaguid === 'string' ? data.aaguid : null,
    name: typeof data.name === 'string' ? data.name : null,
    device_type: data.device_type === 'singleDevice' || data.device_type === 'multiDevice' ? data.device_type : null,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

const columns = ['id', 'account_id', 'subject', 'public_key', 'counter', 'data', 'created_at', 'last_used_at'] as const;

/** The account's passkeys, oldest first. */
export async function listPasskeys(db: Queryable, accountId: string): Promise<PasskeyRecord[]> {
  const rows = await db('credentials').where({ account_id: accountId, type: 'webauthn' }).orderBy('created_at').select(...columns);
  return (rows as PasskeyRow[]).map(toRecord);
}

export interface NewPasskey {
  accountId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  aaguid: string;
  name: string;
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
  at: Date;
}

/** Stores a passkey; null when its credential id is already registered (credentials_webauthn_id). */
export async function insertPasskey(trx: Queryable, passkey: NewPasskey): Promise<string | null> {
  const data: PasskeyData = {
    name: passkey.name,
    transports: passkey.transports,
    aaguid: passkey.aaguid,
    device_type: passkey.deviceType,
    backed_up: passkey.backedUp,
  };
  const rows = await trx('credentials')
    .insert({
      account_id: passkey.accountId,
      type: 'webauthn',
      subject: passkey.credentialId,
      public_key: Buffer.from(passkey.publicKey),
      counter: passkey.counter,
      data: JSON.stringify(data),
      created_at: passkey.at,
    })
    .onConflict(trx.raw("(subject) where type = 'webauthn'"))
    .ignore()
    .returning('id');
  return (rows as { id: string }[])[0]?.id ?? null;
}

/**
 * Records an accepted assertion: its signature counter, only if the stored one is still what the
 * check saw (of two sign-ins with one counter value, a cloned authenticator or a race, one wins;
 * an authenticator that keeps no counter, 0 → 0, always passes), and its backup state (BS), which
 * changes when the person turns syncing on or off. The device type is written too: a passkey
 * stored without one keeps the one its first use showed.
 */
export async function recordAssertion(
  db: Queryable,
  id: string,
  seen: number,
  use: { counter: number; deviceType: PasskeyDeviceType; backedUp: boolean },
): Promise<boolean> {
  const data: PasskeyData = { device_type: use.deviceType, backed_up: use.backedUp };
  const updated = await db('credentials')
    .where({ id, counter: seen })
    .update({ counter: use.counter, data: db.raw('data || ?::jsonb', [JSON.stringify(data)]) });
  return updated === 1;
}
