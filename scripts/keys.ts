/**
 * `npm run keys -- rotate`: new signing keys, published at once and signing after the publish
 * delay (`--now` skips it: when a key is compromised); the old ones verify for the grace period.
 * `npm run keys -- help` (or `--help`, `-h`): the usage.
 */
import { jwksRefreshSeconds, keyPublishSeconds, retiredKeyGraceSeconds, retiredKeyHintSeconds, rotateSigningKeys } from '../src/oidc/keys.ts';
import { withContext } from './cli-context.ts';

const usage = [
  'usage: npm run keys -- rotate [--now]',
  '       npm run keys -- help',
  '',
  '  rotate  new signing keys: published at once, signing after the publish delay; the old ones keep verifying for a grace period',
  '  --now   sign with them at once, without the publish delay (a compromised key; relying parties may not have fetched the new JWKS yet)',
].join('\n');
const args = process.argv.slice(2);
if (args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
  console.log(usage);
  process.exit(0);
}
const [command, ...options] = args;
if (command !== 'rotate' || options.some((option) => option !== '--now')) {
  console.error(usage);
  process.exit(64);
}
await withContext(async (ctx) => {
  const publishSeconds = options.includes('--now') ? 0 : keyPublishSeconds;
  const { kids, activatesAt } = await rotateSigningKeys(ctx, { publishSeconds });
  console.log(
    `New signing keys: ${kids.join(', ')}, published now, signing from ${activatesAt.toISOString()}. ` +
      `Running instances sign with them within ${jwksRefreshSeconds} s of that time, without a restart; old keys stay in the JWKS for ${retiredKeyGraceSeconds / 3600} h after it and are accepted in id_token_hint for ${retiredKeyHintSeconds / 86400} days.`,
  );
});
