import { z } from 'zod';
import { passwordInputSchema } from '../login/login.schemas.ts';

/** Bidirectional overrides and isolates: they make a name display as something else. */
const bidiControls = /[\u202A-\u202E\u2066-\u2069]/u;

/**
 * Control characters (C0, DEL, C1) and bidirectional overrides and isolates. A name with them can
 * reorder or hide the text around it where it is shown (the profile, the operator console, the
 * audit log) and break the lines of a log.
 */
const hasControlCharacters = (value: string) => /\p{Cc}/u.test(value) || bidiControls.test(value);

/** NFC and trimmed; the raw value is capped well above any limit so a huge one is not normalised. */
const normalizedText = () =>
  z
    .string()
    .max(1000)
    .transform((value) => value.normalize('NFC').trim());

/**
 * A display name: trimmed, NFC, 1–100 characters (code points), no control characters. It is
 * shown to recruiters and operators, so it must not be able to reorder or hide text around it.
 */
export const nameSchema = normalizedText()
  .refine((value) => value.length > 0, 'Name cannot be empty')
  .refine((value) => [...value].length <= 100, 'Name must be at most 100 characters')
  .refine((value) => !hasControlCharacters(value), 'Name cannot contain control characters');

/**
 * A passkey's name: the display name's rules (trimmed, NFC, no control characters), at most 64
 * characters (code points). It is shown in the profile and the operator console and written to
 * the audit log. Empty is allowed: the passkey is then called "Passkey".
 */
export const passkeyNameSchema = normalizedText()
  .refine((value) => [...value].length <= 64, 'Name must be at most 64 characters')
  .refine((value) => !hasControlCharacters(value), 'Name cannot contain control characters');

export const supportedLocales = ['sv', 'en'] as const;

/** POST /api/accounts/settings: one setting per call, as the spec's `{key, value}`. */
export const settingBody = z.discriminatedUnion('key', [
  z.object({ key: z.literal('locale'), value: z.enum(supportedLocales) }),
  z.object({ key: z.literal('name'), value: nameSchema }),
]);
export type SettingInput = z.infer<typeof settingBody>;

export const changePasswordBody = z.object({
  current_password: passwordInputSchema,
  new_password: passwordInputSchema,
  /**
   * Default true: a password is usually changed because it may be known to someone else, whose
   * sessions must not outlive it unless the person asks to keep them (the portal always sends it).
   */
  sign_out_others: z.boolean().default(true),
});
