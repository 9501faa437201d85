import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software WebAuthn authenticator for tests: an ES256 (P-256) key pair per credential and the
 * bytes a real authenticator and browser produce — authenticatorData, clientDataJSON, a `none`
 * attestation object in CBOR, DER ECDSA signatures — built by hand (W3C WebAuthn Level 3, §6.1,
 * §6.5, §8.7). Every field the relying party checks can be bent per call, so a test can make
 * exactly one thing wrong.
 */

const flag = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 } as const;
const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** What a ceremony may bend: each defaults to what an honest browser on `origin` would send. */
export interface Bend {
  /** clientDataJSON.origin. */
  origin?: string;
  /** The RP ID whose hash goes into authenticatorData. */
  rpId?: string;
  /** clientDataJSON.type. */
  type?: string;
  /** The challenge signed, base64url. */
  challenge?: string;
  /** The UV flag (user verified); UP is always set. */
  userVerified?: boolean;
  /** The signature counter to report (default: one more than the last). */
  counter?: number;
  /** The BE flag: the key may be synced (a multi-device credential). Default unset. */
  backupEligible?: boolean;
  /** The BS flag: the key is backed up now (BE must be set too, else the RP refuses it). Default unset. */
  backedUp?: boolean;
}

export interface SoftCredential {
  /** base64url credential id. */
  id: string;
  privateKey: KeyObject;
  /** COSE_Key of the public key, CBOR-encoded. */
  cosePublicKey: Uint8Array;
  /** The last counter reported. */
  counter: number;
}

interface RegistrationOptions {
  challenge: string;
  rp: { id?: string };
}

interface AuthenticationOptions {
  challenge: string;
  rpId?: string;
}

export class SoftAuthenticator {
  readonly origin: string;
  readonly rpId: string;
  /** 16 zero bytes is "no AAGUID"; a fixed one shows it is stored. */
  readonly aaguid = Buffer.from('5e5f1a3c9c0d4d2a8b4a0c1d2e3f4a5b', 'hex');
  readonly credentials: SoftCredential[] = [];

  constructor(origin: string) {
    this.origin = origin;
    this.rpId = new URL(origin).hostname;
  }

  /**
   * navigator.credentials.create(): a new credential and the RegistrationResponseJSON the browser
   * sends. With `again`, that credential (its id and key) is registered once more, as an
   * authenticator ignoring excludeCredentials would.
   */
  register(options: RegistrationOptions, bend: Bend = {}, again?: SoftCredential) {
    const { privateKey, publicKey } = again
      ? { privateKey: again.privateKey, publicKey: createPublicKey(again.privateKey) }
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const credentialId = again ? Buffer.from(again.id, 'base64url') : randomBytes(32);
    const counter = bend.counter ?? 0;
    const attested = Buffer.concat([this.aaguid, u16(credentialId.length), credentialId, cose]);
    const authData = this.authenticatorData(bend, counter, flag.at, attested);
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, bend);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, number> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, number>()],
        ['authData', authData],
      ]),
    );
    const credential: SoftCredential = { id: b64url(credentialId), privateKey, cosePublicKey: cose, counter };
    if (!again) this.credentials.push(credential);
    return {
      credential,
      response: {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key' as const,
        response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform' as const,
      },
    };
  }

  /** navigator.credentials.get() with `credential`: the AuthenticationResponseJSON the browser sends. */
  authenticate(options: AuthenticationOptions, credential: SoftCredential = this.only(), bend: Bend = {}) {
    const counter = bend.counter ?? credential.counter + 1;
    credential.counter = counter;
    const authData = this.authenticatorData(bend, counter, 0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, bend);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  private only(): SoftCredential {
    if (this.credentials.length !== 1) throw new Error(`expected one credential, have ${this.credentials.length}`);
    return this.credentials[0]!;
  }

  private authenticatorData(bend: Bend, counter: number, extraFlags: number, attested: Buffer = Buffer.alloc(0)): Buffer {
    const flags =
      flag.up | (bend.userVerified === false ? 0 : flag.uv) | (bend.backupEligible ? flag.be : 0) | (bend.backedUp ? flag.bs : 0) | extraFlags;
    return Buffer.concat([sha256(bend.rpId ?? this.rpId), Buffer.from([flags]), u32(counter), attested]);
  }

  private clientData(type: string, challenge: string, bend: Bend): Buffer {
    return Buffer.from(
      JSON.stringify({ type: bend.type ?? type, challenge: bend.challenge ?? challenge, origin: bend.origin ?? this.origin, crossOrigin: false }),
    );
  }
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
