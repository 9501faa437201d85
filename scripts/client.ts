/**
 * `npm run client -- add <client_id> --redirect <uri> [--redirect <uri>] [--logout <uri>] [--public] [--name <name>] [--secret <secret>]`
 * `npm run client -- list`
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { upsertClient } from '../src/oidc/clients.ts';
import { withContext } from './cli-context.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    redirect: { type: 'string', multiple: true, default: [] },
    logout: { type: 'string', multiple: true, default: [] },
    public: { type: 'boolean', default: false },
    name: { type: 'string' },
    secret: { type: 'string' },
    alg: { type: 'string', default: 'ES256' },
  },
});

const [command, clientId] = positionals;
if (command !== 'add' && command !== 'list') {
  console.error('usage: npm run client -- add <client_id> --redirect <uri> [--logout <uri>] [--public] [--name <name>] [--secret <secret>] | list');
  process.exit(64);
}

await withContext(async (ctx) => {
  if (command === 'list') {
    const rows = await ctx.db('oidc_clients').orderBy('client_id').select('client_id', 'metadata');
    for (const row of rows) {
      const meta = typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
      console.log(`${row.client_id}\t${meta.token_endpoint_auth_method}\t${meta.redirect_uris.join(' ')}`);
    }
    return;
  }
  try {
    const metadata = await upsertClient(ctx.db, {
      client_id: clientId ?? '',
      client_name: values.name,
      redirect_uris: values.redirect,
      post_logout_redirect_uris: values.logout,
      public: values.public,
      client_secret: values.secret,
      id_token_signed_response_alg: values.alg as 'ES256' | 'RS256',
    });
    console.log(`Client ${metadata.client_id} saved.`);
    if (metadata.client_secret && !values.secret) console.log(`client_secret: ${metadata.client_secret} (shown once)`);
  } catch (error) {
    if (error instanceof z.ZodError) {
      console.error(`nyckel: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      process.exitCode = 64;
      return;
    }
    throw error;
  }
});
