/**
 * `npm run keys -- rotate`: new signing keys, published at once and signing after the publish
 * delay (`--now` skips it: for a single instance); the old ones verify for the grace period.
 */
import { keyPublishSeconds, retiredKeyGraceSeconds, rotateSigningKeys } from '../src/oidc/keys.ts';
import { withContext } from './cli-context.ts';

const [command, ...options] = process.argv.slice(2);
if (command !== 'rotate' || options.some((option) => option !== '--now')) {
  console.error('usage: npm run keys -- rotate [--now]');
  process.exit(64);
}
await withContext(async (ctx) => {
  const publishSeconds = options.includes('--now') ? 0 : keyPublishSeconds;
  const { kids, activatesAt } = await rotateSigningKeys(ctx, { publishSeconds });
  console.log(
    `New signing keys: ${kids.join(', ')}, published now, signing from ${activatesAt.toISOString()}. ` +
      `Restart every instance after that time to sign with them; old keys keep verifying for ${retiredKeyGraceSeconds / 3600} h after it.`,
  );
});
