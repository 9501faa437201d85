/**
 * `npm run client -- add <client_id> --redirect <uri> [--redirect <uri>]… [--logout <uri>]… [--login-uri <uri>] [--public] [--name <name>] [--secret <secret>] [--alg ES256|RS256]`
 * `npm run client -- update <client_id> [--redirect <uri>]… [--logout <uri>… | --no-logout] [--login-uri <uri> | --no-login-uri] [--name <name>] [--alg ES256|RS256]`
 * `npm run client -- rotate-secret <client_id>`
 * `npm run client -- list`
 * `npm run client -- help` (or `--help`, `-h`)
 *
 * `add` never touches an existing client and `update` changes only what it is given: re-running
 * `add` used to replace the secret of a deployed relying party (and drop its other settings).
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Context } from '../src/context.ts';
import { clientCacheMs, insertClient, rotateClientSecret, updateClient, type ClientWrite } from '../src/oidc/clients.ts';
import { withContext } from './cli-context.ts';

const usage = [
  'usage: npm run client -- add <client_id> --redirect <uri> [--redirect <uri>]… [--logout <uri>]… [--login-uri <uri>] [--public] [--name <name>] [--secret <secret>] [--alg ES256|RS256]',
  '       npm run client -- update <client_id> [--redirect <uri>]… [--logout <uri>… | --no-logout] [--login-uri <uri> | --no-login-uri] [--name <name>] [--alg ES256|RS256]',
  '       npm run client -- rotate-secret <client_id>',
  '       npm run client -- list',
  '       npm run client -- help',
  '',
  '  --redirect <uri>   a redirect URI; repeat for more (update: the list given replaces the stored one)',
  '  --logout <uri>     a post-logout redirect URI; repeat for more (update: replaces the stored list)',
  '  --no-logout        update: remove every post-logout redirect URI',
  '  --login-uri <uri>  where the app starts its own sign-in (initiate_login_uri, https only): Nyckel sends',
  '                     browsers there to sign in again and for an operator\'s "log in as"',
  '  --no-login-uri     update: remove the login URI',
  '  --public           a public client (a single-page app in the browser): PKCE alone, no secret',
  '  --secret <secret>  add: this secret instead of a generated one (confidential clients only)',
  '  --name <name>      the name shown to people signing in',
  '  --alg ES256|RS256  the ID token signing algorithm (default ES256)',
  '',
  'add refuses an existing client_id; update keeps the secret and the client type; rotate-secret prints a new secret once.',
].join('\n');

const options = {
  redirect: { type: 'string', multiple: true },
  logout: { type: 'string', multiple: true },
  public: { type: 'boolean' },
  name: { type: 'string' },
  secret: { type: 'string' },
  alg: { type: 'string' },
  'no-logout': { type: 'boolean' },
  'login-uri': { type: 'string' },
  'no-login-uri': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The options each command takes; any other one is a usage error, not silently ignored. */
const allowed: Record<string, (keyof typeof options)[]> = {
  add: ['redirect', 'logout', 'login-uri', 'public', 'name', 'secret', 'alg'],
  update: ['redirect', 'logout', 'no-logout', 'login-uri', 'no-login-uri', 'name', 'alg'],
  'rotate-secret': [],
  list: [],
};

function usageError(message?: string): never {
  console.error(message ? `nyckel: ${message}\n${usage}` : usage);
  process.exit(64);
}

let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options });
} catch (error) {
  usageError((error as Error).message);
}
const { positionals, values } = parsed;
const [command, clientId, ...extra] = positionals;
if (values.help || command === 'help') {
  console.log(usage);
  process.exit(0);
}
const takes = command === undefined ? undefined : allowed[command];
if (!takes || extra.length > 0 || (command === 'list') !== (clientId === undefined)) usageError();
const misplaced = Object.keys(values).filter((option) => !takes.includes(option as keyof typeof options));
if (misplaced.length) {
  usageError(
    command === 'update' && (misplaced.includes('secret') || misplaced.includes('public'))
      ? 'update keeps the client type and its secret; `rotate-secret <client_id>` makes a new secret'
      : `${command} takes no --${misplaced.join(', --')}`,
  );
}
if (values.logout && values['no-logout']) usageError('--logout and --no-logout exclude each other');
if (values['login-uri'] !== undefined && values['no-login-uri']) usageError('--login-uri and --no-login-uri exclude each other');
// A public client has no secret: storing the given one would only hide that it is never checked.
if (values.public && values.secret !== undefined) {
  usageError('a public client (--public) has no secret: it authenticates with PKCE alone. Leave out --secret, or --public for a confidential client.');
}
const alg = values.alg as 'ES256' | 'RS256' | undefined;

const refusals = {
  exists: (id: string) =>
    `client ${id} already exists. Change its settings with \`npm run client -- update ${id} …\` (keeps its secret), ` +
    `or give it a new secret with \`npm run client -- rotate-secret ${id}\`.`,
  unknown: (id: string) => `no client ${id}; register it with \`npm run client -- add ${id} --redirect <uri>\`.`,
  public: (id: string) => `client ${id} is public (PKCE only): it has no secret to rotate.`,
};

/** Servers keep a client's metadata cached (clientCacheMs): a change is not seen at once. */
const cacheNote = `Running servers use the change within ${clientCacheMs / 1000} s.`;
const secretLine = (metadata: Record<string, unknown>) => `client_secret: ${metadata.client_secret} (shown once)`;

/** The command-line option behind each metadata field, so a refusal names what to type. */
const optionOf: Record<string, string> = {
  client_id: '<client_id>',
  client_name: '--name',
  redirect_uris: '--redirect',
  post_logout_redirect_uris: '--logout',
  initiate_login_uri: '--login-uri',
  client_secret: '--secret',
  id_token_signed_response_alg: '--alg',
};

/** A validation issue in the terms of the command line: `--redirect: give at least one`, `--redirect (2nd): …`. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const [field, index] = issue.path;
  const option = (typeof field === 'string' && optionOf[field]) || issue.path.join('.');
  const which = typeof index === 'number' ? ` (${ordinal(index + 1)})` : '';
  const message = issue.code === 'too_small' && issue.origin === 'array' ? 'give at least one' : issue.message;
  return `${option}${which}: ${message}`;
}

const ordinal = (n: number) => `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

await withContext(async (ctx) => {
  if (command === 'list') return list(ctx);
  const id = clientId!;
  try {
    if (command === 'add') {
      const write = await insertClient(ctx.db, {
        client_id: id,
        client_name: values.name,
        redirect_uris: values.redirect ?? [],
        post_logout_redirect_uris: values.logout,
        initiate_login_uri: values['login-uri'],
        public: values.public,
        client_secret: values.secret,
        id_token_signed_response_alg: alg,
      });
      // A given secret is not echoed: whoever gave it has it.
      report(id, write, (metadata) => [`Client ${id} saved.`, ...(metadata.client_secret && !values.secret ? [secretLine(metadata)] : [])]);
    } else if (command === 'update') {
      const changes = {
        client_name: values.name,
        redirect_uris: values.redirect,
        post_logout_redirect_uris: values['no-logout'] ? [] : values.logout,
        initiate_login_uri: values['no-login-uri'] ? null : values['login-uri'],
        id_token_signed_response_alg: alg,
      };
      report(id, await updateClient(ctx.db, id, changes), () => [`Client ${id} updated.`, cacheNote]);
    } else {
      report(id, await rotateClientSecret(ctx.db, id), (metadata) => [`Client ${id} has a new secret.`, secretLine(metadata), cacheNote]);
    }
  } catch (error) {
    if (!(error instanceof z.ZodError)) throw error;
    console.error(`nyckel: ${error.issues.map(describeIssue).join('; ')}`);
    process.exitCode = 64;
  }
});

/** One block per client, its lists one URI a line, for reading in a terminal. */
async function list(ctx: Context): Promise<void> {
  const rows = await ctx.db('oidc_clients').orderBy('client_id').select('client_id', 'metadata');
  const blocks = rows.map((row) => describeClient(typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata));
  console.log(blocks.length ? blocks.join('\n\n') : 'No clients.');
}

interface ListedMetadata {
  client_id: string;
  client_name?: string;
  token_endpoint_auth_method: string;
  id_token_signed_response_alg?: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
  initiate_login_uri?: string;
}

function describeClient(meta: ListedMetadata): string {
  const field = (label: string, values: string[]) =>
    `  ${label.padEnd(13)} ${values.length ? values.join(`\n  ${' '.repeat(13)} `) : '(none)'}`;
  return [
    meta.client_id,
    field('name', [meta.client_name ?? meta.client_id]),
    field('type', [meta.token_endpoint_auth_method === 'none' ? 'public (PKCE only)' : `confidential (${meta.token_endpoint_auth_method})`]),
    field('ID token alg', [meta.id_token_signed_response_alg ?? 'ES256']),
    field('redirect', meta.redirect_uris),
    field('post-logout', meta.post_logout_redirect_uris ?? []),
    field('login URI', meta.initiate_login_uri ? [meta.initiate_login_uri] : []),
  ].join('\n');
}

function report(id: string, write: ClientWrite, lines: (metadata: Record<string, unknown>) => string[]): void {
  if ('refused' in write) {
    console.error(`nyckel: ${refusals[write.refused](id)}`);
    process.exitCode = 1;
    return;
  }
  for (const line of lines(write.metadata)) console.log(line);
}
