import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';

/**
 * The JSON shapes @simplewebauthn/browser sends (WebAuthn Level 3 toJSON()). Checked at the edge
 * so a malformed answer is a 422, never a library exception; the cryptographic checks follow in
 * the service. Sizes are generous for real authenticators and bounded for everyone else.
 */
const base64url = (max: number) => z.string().max(max).regex(/^[A-Za-z0-9_-]*$/, 'Must be base64url');
const credentialId = base64url(1366).min(1);
/** The fields every PublicKeyCredential JSON carries, whatever the ceremony (`response` differs). */
const publicKeyCredential = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

export const authenticationResponseSchema = z
  .object({
    ...publicKeyCredential,
    response: z.object({
      clientDataJSON: base64url(4096),
      authenticatorData: base64url(4096),
      signature: base64url(2048),
      userHandle: base64url(128).optional(),
    }),
  })
  .transform((value) => value as AuthenticationResponseJSON);

export const registrationResponseSchema = z
  .object({
    ...publicKeyCredential,
    response: z.object({
      clientDataJSON: base64url(4096),
      attestationObject: base64url(8192),
      authenticatorData: base64url(4096).optional(),
      transports: z.array(z.string().max(32)).max(8).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: base64url(4096).optional(),
    }),
  })
  .transform((value) => value as RegistrationResponseJSON);
