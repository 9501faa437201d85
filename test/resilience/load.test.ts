import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionNodeFlags } from '../../src/config/node-flags.ts';
import { hashPassword } from '../../src/credentials/password/hashing.ts';
import { newTotpSecret, totpCodeAt } from '../../src/credentials/totp/totp.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import type { Db } from '../../src/db/knex.ts';
import { createTestDb } from '../helpers/context.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { codeFrom } from '../login/journey.ts';
import { BrowserLike, sharedSecrets } from './journeys.ts';
import { startNyckel, type NyckelProcess } from './nyckel-process.ts';

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const password = 'Under-load-passw0rd!';
/** Concurrent sign-ins per round, a third each by password, email code and password + TOTP. */
const flowsPerRound = 500;
const rounds = 3;
const perKind = Math.ceil(flowsPerRound / 3);

type Kind = 'password' | 'email_code' | 'totp';

/**
 * 500 people signing in at once, three times, against a real Nyckel process on PostgreSQL and
 * Redis: every sign-in reaches Done, and the process does not grow (RSS after the third round
 * within 10% of the first). Each flow comes from its own address (X-Forwarded-For behind
 * TRUST_PROXY=1), as real traffic does, so only per-account limits apply.
 */
describe.skipIf(!shared)('500 concurrent sign-ins, three rounds', () => {
  let nyckel: NyckelProcess;
  let mail: MailServer;
  let drop: () => Promise<void>;
  let totpSecret: string;
  const accounts: Record<Kind, string[][]> = { password: [], email_code: [], totp: [] };

  async function insertAccounts(db: Db, emails: string[], credentials: (id: string) => Record<string, unknown>[]) {
    for (let i = 0; i < emails.length; i += 250) {
      const rows = await db('accounts')
        .insert(emails.slice(i, i + 250).map((email) => ({ email, name: email.split('@')[0], is_user: true, email_verified: true })))
        .returning('id');
      const creds = rows.flatMap((row: { id: string }) => credentials(row.id));
      if (creds.length) await db('credentials').insert(creds);
    }
  }

  beforeAll(async () => {
    const database = await createTestDb();
    drop = database.drop;
    const secrets = sharedSecrets();
    const hash = await hashPassword(password);
    totpSecret = newTotpSecret();
    // One secret for every TOTP account: a code is accepted once per credential, not per secret.
    const sealed = createSecretBox(Buffer.from(secrets.ENCRYPTION_KEY, 'base64')).seal(totpSecret);
    const emails = (kind: string, round: number) => Array.from({ length: perKind }, (_, i) => `${kind}-${round}-${i}@load.example.com`);
    // Password and email-code accounts sign in once per round; a TOTP code is accepted once per
    // credential and 30-second step, so each round's TOTP sign-ins use accounts of their own.
    accounts.password = Array.from({ length: rounds }, () => emails('pwd', 0));
    accounts.email_code = Array.from({ length: rounds }, () => emails('code', 0));
    accounts.totp = Array.from({ length: rounds }, (_, round) => emails('totp', round));
    await insertAccounts(database.db, accounts.password[0]!, (id) => [{ account_id: id, type: 'password', secret: hash }]);
    await insertAccounts(database.db, accounts.email_code[0]!, () => []);
    await insertAccounts(database.db, accounts.totp.flat(), (id) => [
      { account_id: id, type: 'password', secret: hash },
      { account_id: id, type: 'totp', secret: sealed },
    ]);
    mail = await startMailServer();
    nyckel = await startNyckel({
      ...secrets,
      DATABASE_URL: database.databaseUrl!,
      REDIS_URL: process.env.REDIS_URL!,
      STORE_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      SMTP_URL: mail.url,
      TRUST_PROXY: '1',
      // As docs/operations.md recommends: argon2id's 19 MiB buffers are always mapped and
      // unmapped, instead of glibc keeping them in per-thread arenas after the first peak.
      MALLOC_MMAP_THRESHOLD_: String(1024 * 1024),
      // Test hook: SIGUSR2 runs a full garbage collection, so memory is read as what is retained,
      // not as garbage V8 has not yet had a reason to collect.
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent("process.on('SIGUSR2',()=>globalThis.gc())")}`,
      // With the V8 flags production runs with (npm start, the image).
    }, undefined, [...productionNodeFlags, '--expose-gc']);
  }, 120_000);

  afterAll(async () => {
    await nyckel?.stop();
    await mail?.close();
    await drop?.();
  });

  /** One person signing in; answers the final state, or what went wrong. */
  async function signIn(kind: Kind, email: string, index: number): Promise<string> {
    const browser = new BrowserLike(nyckel.base);
    const ip = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
    const call = async <T>(path: string, body: unknown) => {
      const response = await browser.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: nyckel.base, 'x-forwarded-for': ip },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      const answer = (await response.json()) as T & { state?: string; detail?: { type: string }[] };
      if (response.status !== 200) throw new Error(`${path} answered ${response.status} ${answer.detail?.[0]?.type}`);
      return answer;
    };
    const start = await call<{ session_id: string; state: string }>('/auth/login/start', { email });
    const session_id = start.session_id;
    if (kind === 'email_code') {
      const otp = codeFrom(await mail.waitFor(email, undefined, 60_000));
      const asked = await call('/auth/login/verify-otp', { session_id, email, otp });
      if (asked.state !== 'AskedCreateCredential') return `verify-otp: ${asked.state}`;
      return (await call('/auth/login/skip-create-password', { session_id })).state!;
    }
    const first = await call('/auth/login/verify-password', { session_id, email, password });
    if (kind === 'password') return first.state!;
    if (first.state !== 'MfaRequired') return `verify-password: ${first.state}`;
    return (await call('/auth/login/verify-mfa', { session_id, totp_code: await totpCodeAt(totpSecret, new Date()) })).state!;
  }

  it('every sign-in of every round reaches Done, and memory does not grow', async () => {
    const rss: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const flows = (['password', 'email_code', 'totp'] as const).flatMap((kind) => accounts[kind][round]!.map((email) => ({ kind, email })));
      const started = Date.now();
      const outcomes = await Promise.all(
        flows.slice(0, flowsPerRound).map(({ kind, email }, i) => signIn(kind, email, round * flowsPerRound + i).catch((error: Error) => error.message)),
      );
      const failures = outcomes.filter((state) => state !== 'Done');
      expect(failures, `round ${round + 1}: ${failures.length} sign-ins failed, e.g. ${[...new Set(failures)].slice(0, 5).join('; ')}`).toEqual([]);
      // Let the process settle (sockets close, timers run), collect its garbage, then read its memory.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      nyckel.child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rss.push(nyckel.rss());
      const heap = /^nyckel_nodejs_heap_size_used_bytes (\d+)/m.exec(await (await fetch(`${nyckel.base}/metrics`)).text())?.[1];
      console.log(`round ${round + 1}: ${flowsPerRound} sign-ins in ${Date.now() - started} ms; RSS ${Math.round(rss.at(-1)! / 2 ** 20)} MB, heap in use ${Math.round(Number(heap) / 2 ** 20)} MB`);
    }
    // The first round warms the process up (compiled code, pools, glibc arenas of the argon2
    // threads: measured +20–40 MB); a leak would then keep growing round after round. Round 3
    // stays within 5% of round 2, and within 30% of round 1.
    expect(rss[2]! / rss[1]!).toBeLessThan(1.05);
    expect(rss[2]! / rss[0]!).toBeLessThan(1.3);
    expect(nyckel.child.exitCode).toBeNull();
  }, 150_000);
});
