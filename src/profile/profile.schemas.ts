import { z } from 'zod';
import { passwordInputSchema } from '../login/login.schemas.ts';

/** Bidirectional overrides and isolates: they make a name display as something else. */
const bidiControls = /[\u202A-\u202E\u2066-\u2069]/u;

/**
 * A display name: trimmed, NFC, 1–100 characters (code points), no control characters. It is
 * shown to recruiters and operators, so it must not be able to reorder or hide text around it.
 */
export const nameSchema = z
  .string()
  .max(1000)
  .transform((value) => value.normalize('NFC').trim())
  .refine((value) => value.length > 0, 'Name cannot be empty')
  .refine((value) => [...value].length <= 100, 'Name must be at most 100 characters')
  .refine((value) => !/\p{Cc}/u.test(value) && !bidiControls.test(value), 'Name cannot contain control characters');

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
  sign_out_others: z.boolean().default(false),
});
