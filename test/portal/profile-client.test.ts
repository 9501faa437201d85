import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from '../../portal/src/api/client.ts';

interface Call {
  url: string;
  init: RequestInit;
}

let calls: Call[] = [];

function answer(status: number, body?: unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(status === 204 || body === undefined ? null : JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json' },
      });
    }),
  );
}

beforeEach(() => {
  calls = [];
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('profile calls', () => {
  it('tfaSetup reads the pending secret', async () => {
    answer(200, { secret: 'JBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/Nyckel:a?secret=JBSWY3DPEHPK3PXP' });
    await expect(api.tfaSetup()).resolves.toMatchObject({ secret: 'JBSWY3DPEHPK3PXP' });
    expect(calls[0]).toMatchObject({ url: '/auth/tfa/setup', init: { method: 'GET', credentials: 'same-origin' } });
  });

  it('tfaActivate posts the code as JSON', async () => {
    answer(200, { id: 'c1', type: 'totp' });
    await expect(api.tfaActivate({ totp_code: '123456' })).resolves.toEqual({ id: 'c1', type: 'totp' });
    expect(calls[0]).toMatchObject({ url: '/auth/tfa/activate', init: { method: 'POST' } });
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({ totp_code: '123456' });
  });

  it('tfaActivate throws the server error type', async () => {
    answer(409, { detail: [{ type: 'totp/no-pending', msg: 'No pending secret' }] });
    const failure = await api.tfaActivate({ totp_code: '123456' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(api.ApiError);
    expect((failure as api.ApiError).type).toBe('totp/no-pending');
  });

  it('tfaDevices lists the remembered devices', async () => {
    answer(200, { devices: [] });
    await expect(api.tfaDevices()).resolves.toEqual({ devices: [] });
    expect(calls[0]).toMatchObject({ url: '/auth/tfa/devices', init: { method: 'GET' } });
  });

  it.each([
    ['revokeDevice', () => api.revokeDevice('d/1'), '/auth/tfa/devices/d%2F1'],
    ['deleteCredential', () => api.deleteCredential('c 1'), '/oauth2/userinfo/credentials/c%201'],
  ])('%s sends DELETE with the id escaped and answers nothing on 204', async (_name, call, url) => {
    answer(204);
    await expect(call()).resolves.toBeUndefined();
    expect(calls[0]).toMatchObject({ url, init: { method: 'DELETE' } });
  });
});
