import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { retiredKeyGraceSeconds, rotateSigningKeys } from '../../src/oidc/keys.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';

interface Jwk {
  kid: string;
  alg: string;
}

describe('signing key rotation', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx?.dispose());

  /** The JWKS as a freshly started instance publishes it (instances load keys at start). */
  async function jwks(): Promise<Jwk[]> {
    const { app } = await createApp(ctx);
    const res = await request(app).get('/oauth2/jwks');
    expect(res.status).toBe(200);
    return res.body.keys;
  }

  let original: Jwk[];
  let rotated: string[];

  it('publishes the new keys first and keeps the old ones listed', async () => {
    original = await jwks();
    expect(original.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);

    rotated = await rotateSigningKeys(ctx);
    expect(rotated).toHaveLength(2);

    const keys = await jwks();
    const kids = keys.map((key) => key.kid);
    expect(kids).toEqual(expect.arrayContaining([...rotated, ...original.map((key) => key.kid)]));
    expect(kids).toHaveLength(4);
    // oidc-provider signs with the first key of an algorithm: the new ES256 key leads.
    expect(keys[0]).toMatchObject({ kid: rotated[0], alg: 'ES256' });
    const newRs256 = kids.indexOf(rotated[1]!);
    const oldRs256 = kids.indexOf(original.find((key) => key.alg === 'RS256')!.kid);
    expect(newRs256).toBeLessThan(oldRs256);
  });

  it('drops the retired keys once their grace period is over', async () => {
    ctx.advance((retiredKeyGraceSeconds + 60) * 1000);
    const kids = (await jwks()).map((key) => key.kid);
    expect(kids.sort()).toEqual([...rotated].sort());
  });
});
