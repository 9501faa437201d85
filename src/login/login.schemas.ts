import { z } from 'zod';
import { maxPasswordInputLength } from '../credentials/password/policy.ts';

/** Shapes of the sign-in and reset calls; openapi.yaml describes the same. */
export const emailSchema = z.string().trim().max(254).pipe(z.email());
export const sessionIdSchema = z.string().min(1).max(128);
/** Passwords are capped before hashing so nobody makes us hash megabytes. */
export const passwordInputSchema = z.string().min(1).max(maxPasswordInputLength);
const sixDigits = z.string().regex(/^\d{6}$/, 'Must be 6 digits');
/** Where "Go to Login" leads after a reset (e.g. athena): a short word, never a URL. */
export const resetTypeSchema = z.string().regex(/^[a-z0-9_-]{1,32}$/i, 'Invalid type');

/**
 * The query string of /auth/login/start is kept with the session (client_id, type, lang, mode,
 * interaction, ...). `interaction` becomes a path segment of redirect_to, so it is checked.
 */
const interactionSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'Invalid interaction');

export const startQuery = z
  .object({
    interaction: interactionSchema.optional(),
    type: resetTypeSchema.optional(),
    lang: z.string().max(16).optional(),
  })
  .catchall(z.string().max(2048))
  .refine((query) => Object.keys(query).length <= 32, 'Too many query parameters')
  .transform((query) => query as Record<string, string>);

export const startBody = z.object({ email: emailSchema });

export const verifyPasswordBody = z.object({
  session_id: sessionIdSchema,
  email: emailSchema,
  password: passwordInputSchema,
  remember: z.boolean().optional(),
});

export const verifyOtpBody = z.object({ session_id: sessionIdSchema, email: emailSchema, otp: sixDigits });
export const sessionOnlyBody = z.object({ session_id: sessionIdSchema });
export const createPasswordBody = z.object({ session_id: sessionIdSchema, password: passwordInputSchema });
export const verifyMfaBody = z.object({ session_id: sessionIdSchema, totp_code: sixDigits, remember: z.boolean().optional() });
export const mergeMfaBody = z.object({ session_id: sessionIdSchema, totp_code: sixDigits });
/** `interaction` or `return_to`: the page's own request, whose sign-in a reload resumes when no session_id is named. */
export const pingQuery = z.object({
  session_id: sessionIdSchema.optional(),
  interaction: interactionSchema.optional(),
  return_to: z.string().max(2048).optional(),
});

export const resetRequestBody = z.object({ email: emailSchema, type: resetTypeSchema.nullish() });
/** Any string: a malformed token is simply an invalid one (406), as the set-password page expects. */
export const tokenSchema = z.string().max(512);
export const checkTokenBody = z.object({ token: tokenSchema });
/** The link an operator's email change mailed to the new address (email-change.service.ts). */
export const confirmEmailChangeBody = z.object({ token: tokenSchema });
export const confirmResetBody = z.object({ token: tokenSchema, password: passwordInputSchema });
