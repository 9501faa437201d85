import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { createJwksRouter } from '../../src/oidc/jwks.routes.ts';
import { jwksRefreshSeconds, keyPublishSeconds, loadSigningKeys, retiredKeyGraceSeconds, rotateSigningKeys } from '../../src/oidc/keys.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

interface Jwk {
  kid: string;
  alg: string;
  d?: string;
}

describe('signing key rotation', () => {
  let ctx: TestContext;
  /** An instance started before the rotation, running throughout. */
  let running: Awaited<ReturnType<typeof createApp>>;

  beforeAll(async () => {
    ctx = await createTestContext();
    running = await createApp(ctx);
  });
  afterAll(() => ctx?.dispose());

  async function jwksOf(app: Awaited<ReturnType<typeof createApp>>): Promise<Jwk[]> {
    const res = await request(app.app).get('/oauth2/jwks');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    return res.body.keys;
  }

  /** The JWKS as a freshly started instance publishes it. */
  const jwks = async () => jwksOf(await createApp(ctx));
  /** The signer per algorithm of an instance starting now: oidc-provider signs with the first key of an alg. */
  const signers = async () => {
    const keys = await loadSigningKeys(ctx);
    return { es: keys.find((key) => key.alg === 'ES256')!.kid, rs: keys.find((key) => key.alg === 'RS256')!.kid };
  };

  let original: Jwk[];
  let rotated: string[];

  it('publishes the new keys at once, with public parts only, and keeps signing with the old ones until their activation', async () => {
    original = await jwksOf(running);
    expect(original.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    const before = await signers();

    let activatesAt: Date;
    ({ kids: rotated, activatesAt } = await rotateSigningKeys(ctx));
    expect(rotated).toHaveLength(2);
    const ahead = activatesAt.getTime() - ctx.now().getTime();
    expect(ahead).toBeGreaterThan((keyPublishSeconds - 5) * 1000);
    expect(ahead).toBeLessThanOrEqual(keyPublishSeconds * 1000);

    const keys = await jwks();
    expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining([...rotated, ...original.map((key) => key.kid)]));
    expect(keys).toHaveLength(4);
    expect(keys.every((key) => key.d === undefined)).toBe(true);
    // An instance (re)started inside the publish window still signs with the old keys.
    expect(await signers()).toEqual(before);
  });

  it('lists a key rotated in after an instance started once its JWKS is read again', async () => {
    expect((await jwksOf(running)).map((key) => key.kid)).not.toContain(rotated[0]);
    ctx.advance((jwksRefreshSeconds + 1) * 1000);
    expect((await jwksOf(running)).map((key) => key.kid)).toEqual(expect.arrayContaining(rotated));
  });

  it('signs with the new keys on instances started after the activation, the old ones still verifying', async () => {
    ctx.advance(keyPublishSeconds * 1000);
    expect(await signers()).toEqual({ es: rotated[0], rs: rotated[1] });
    const keys = await jwks();
    expect(keys[0]).toMatchObject({ kid: rotated[0], alg: 'ES256' });
    expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining(original.map((key) => key.kid)));
  });

  it('drops the retired keys once their grace period is over', async () => {
    ctx.advance((retiredKeyGraceSeconds + 60) * 1000);
    const kids = (await jwks()).map((key) => key.kid);
    expect(kids.sort()).toEqual([...rotated].sort());
  });
});

describe('the JWKS with no list read yet', () => {
  it('answers 503 while the keys cannot be read, never oidc-provider\'s own list; then the keys once they can', async () => {
    const ctx = await createTestContext();
    try {
      await loadSigningKeys(ctx);
      let down = true;
      const db = new Proxy(ctx.db, {
        apply: (target, self, args: unknown[]) => {
          if (down) throw Object.assign(new Error('connect ECONNREFUSED (test)'), { code: 'ECONNREFUSED' });
          return Reflect.apply(target, self, args);
        },
      });
      const app = express().use(createJwksRouter({ ...ctx, db }));
      const refused = await request(app).get('/oauth2/jwks');
      expect([refused.status, refused.headers['retry-after'], refused.body.error]).toEqual([503, '5', 'temporarily_unavailable']);
      down = false;
      const served = await request(app).get('/oauth2/jwks');
      expect(served.status).toBe(200);
      expect(served.body.keys.length).toBeGreaterThanOrEqual(2);
    } finally {
      await ctx.dispose();
    }
  });
});
