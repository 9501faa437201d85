/**
 * `npm run operator -- grant <email> [support|admin]`   (default support)
 * `npm run operator -- revoke <email>`
 * `npm run operator -- list`
 * `npm run operator -- help` (or `--help`, `-h`)
 *
 * Only an account with a second factor (TOTP or passkey) can be granted a role. Operators still
 * sign in through /login and need that second factor in the session to use the console.
 */
import { findAccountByEmail } from '../src/accounts/accounts.repository.ts';
import { recordAudit } from '../src/audit/audit.ts';
import { AppError } from '../src/http/app-error.ts';
import {
  grantOperatorRole,
  isOperatorRole,
  listOperators,
  operatorGrantErrors,
  operatorRoles,
  revokeOperatorRole,
} from '../src/admin/operators.repository.ts';
import { withContext } from './cli-context.ts';

const usage = `usage: npm run operator -- grant <email> [${operatorRoles.join('|')}] | revoke <email> | list | help`;
const args = process.argv.slice(2);
if (args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
  console.log(`${usage}\n\nA role (default support) can be granted only to an account with an authenticator app (TOTP) or a passkey.`);
  process.exit(0);
}
const [command, email, roleArg, ...extra] = args;
const role = roleArg ?? 'support';

const valid =
  extra.length === 0 &&
  ((command === 'grant' && email !== undefined && isOperatorRole(role)) ||
    (command === 'revoke' && email !== undefined && roleArg === undefined) ||
    (command === 'list' && email === undefined));
if (!valid) {
  console.error(command === 'grant' && email !== undefined && !isOperatorRole(role) ? `nyckel: unknown role "${role}"; ${usage}` : usage);
  process.exit(64);
}

await withContext(async (ctx) => {
  if (command === 'list') {
    const operators = await listOperators(ctx.db);
    if (operators.length === 0) console.log('No operators.');
    for (const operator of operators) console.log(`${operator.email}\t${operator.role}\t${operator.name}`);
    return;
  }
  const account = await findAccountByEmail(ctx.db, email!);
  if (!account) {
    console.error(`nyckel: no account with the email ${email}`);
    process.exitCode = 1;
    return;
  }
  const at = ctx.now();
  try {
    await ctx.db.transaction(async (trx) => {
      if (command === 'grant' && isOperatorRole(role)) {
        const previous = await grantOperatorRole(trx, { accountId: account.id, role, grantedBy: null, at });
        await recordAudit(trx, { action: 'operator.role.granted', target_account_id: account.id, details: { role, previous, via: 'cli' }, at });
        console.log(previous === role ? `${account.email} already has the role ${role}.` : `${account.email} is now an operator (${role}).`);
        return;
      }
      const previous = await revokeOperatorRole(trx, account.id);
      if (previous) await recordAudit(trx, { action: 'operator.role.revoked', target_account_id: account.id, details: { role: previous, via: 'cli' }, at });
      console.log(previous ? `${account.email} is no longer an operator (was ${previous}).` : `${account.email} was not an operator.`);
    });
  } catch (error) {
    if (!(error instanceof AppError && error.type === operatorGrantErrors.secondFactorRequired().type)) throw error;
    console.error(
      `nyckel: ${account.email} has no second factor; an operator account must have an authenticator app (TOTP) or a passkey. ` +
        'Ask them to add one under Account settings, then grant the role again.',
    );
    process.exitCode = 1;
  }
});
