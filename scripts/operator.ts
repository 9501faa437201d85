/**
 * `npm run operator -- grant <email> [support|admin]`   (default support)
 * `npm run operator -- revoke <email>`
 * `npm run operator -- list`
 * `npm run operator -- help` (or `--help`, `-h`)
 * `--force` lets revoke (or grant support) take the role of the last admin.
 *
 * Only an account with a second factor (TOTP or passkey) can be granted a role. Operators still
 * sign in through /login and need that second factor in the session to use the console.
 *
 * No one signs in here, so the audit event names who ran the command as the machine knows them
 * (the operating-system user and the host): the console's roles are its most sensitive change.
 * The last admin keeps the role unless --force says otherwise: without an admin, no one can
 * delete a lost factor, read reset links or log in as a user until someone with shell access
 * grants the role again.
 */
import { hostname, userInfo } from 'node:os';
import { findAccountByEmail, type Queryable } from '../src/accounts/accounts.repository.ts';
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

const usage = `usage: npm run operator -- grant <email> [${operatorRoles.join('|')}] | revoke <email> | list | help   [--force]`;
const given = process.argv.slice(2);
if (given[0] === 'help' || given.includes('--help') || given.includes('-h')) {
  console.log(
    `${usage}\n\nA role (default support) can be granted only to an account with an authenticator app (TOTP) or a passkey.\n` +
      'The last admin keeps the role unless --force is given.',
  );
  process.exit(0);
}
const force = given.includes('--force');
const args = given.filter((arg) => arg !== '--force');
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
  const by = whoRunsThis();
  try {
    await ctx.db.transaction(async (trx) => {
      if (!force && (command === 'revoke' || role !== 'admin') && (await isLastAdmin(trx, account.id))) {
        console.error(
          `nyckel: ${account.email} is the last admin; without one no one can delete credentials, read reset links or log in as a user. ` +
            'Grant another account the admin role first, or add --force.',
        );
        process.exitCode = 1;
        return;
      }
      if (command === 'grant' && isOperatorRole(role)) {
        const previous = await grantOperatorRole(trx, { accountId: account.id, role, grantedBy: null, at });
        await recordAudit(trx, { action: 'operator.role.granted', target_account_id: account.id, details: { role, previous, via: 'cli', by }, at });
        console.log(previous === role ? `${account.email} already has the role ${role}.` : `${account.email} is now an operator (${role}).`);
        return;
      }
      const previous = await revokeOperatorRole(trx, account.id);
      if (previous) await recordAudit(trx, { action: 'operator.role.revoked', target_account_id: account.id, details: { role: previous, via: 'cli', by, forced: force }, at });
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

/**
 * Whether the account holds the only admin role. The admin rows are locked for the transaction, so
 * two revocations run at once cannot each see the other admin still there.
 */
async function isLastAdmin(trx: Queryable, accountId: string): Promise<boolean> {
  const admins = (await trx('operator_roles').where({ role: 'admin' }).forUpdate().select('account_id')) as { account_id: string }[];
  return admins.length === 1 && admins[0]!.account_id === accountId;
}

/** The operating-system user and host running the command, for the audit event (never a secret). */
function whoRunsThis(): { os_user: string | null; host: string } {
  let user: string | null = null;
  try {
    user = userInfo().username;
  } catch {
    // A container user with no passwd entry: the host still says where.
  }
  return { os_user: user ?? process.env.USER ?? null, host: hostname() };
}
