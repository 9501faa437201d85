/** `npm run keys -- rotate`: new signing keys; the old ones verify for the grace period. */
import { retiredKeyGraceSeconds, rotateSigningKeys } from '../src/oidc/keys.ts';
import { withContext } from './cli-context.ts';

const [command] = process.argv.slice(2);
if (command !== 'rotate') {
  console.error('usage: npm run keys -- rotate');
  process.exit(64);
}
await withContext(async (ctx) => {
  const kids = await rotateSigningKeys(ctx);
  console.log(`New signing keys: ${kids.join(', ')}. Old keys keep verifying for ${retiredKeyGraceSeconds / 3600} h; restart every instance to sign with the new ones.`);
});
