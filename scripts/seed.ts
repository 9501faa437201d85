/** `npm run seed`: the demo data (refused in production). */
import { seedDemo } from '../seeds/demo.ts';
import { withContext } from './cli-context.ts';

await withContext(async (ctx) => {
  if (ctx.config.env === 'production') {
    console.error('nyckel: demo data is refused in production');
    process.exitCode = 1;
    return;
  }
  console.log((await seedDemo(ctx)) ? 'Demo data seeded.' : 'Demo data already present.');
});
