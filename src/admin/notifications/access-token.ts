import type { Request } from 'express';
import type Provider from 'oidc-provider';
import { AppError } from '../../http/app-error.ts';

const invalidToken = () =>
  new AppError('invalid_token', 401, 'A valid access token is required', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

/**
 * The account behind a Bearer access token issued by our own provider, checked the way
 * oidc-provider's userinfo endpoint checks it: the token exists and is unexpired, names an
 * account, and its grant still exists for the same client and account (a revoked grant or a
 * signed-out person ends it). Sender-constrained tokens (DPoP, mTLS) are refused: this endpoint
 * cannot check their proof, so accepting them would downgrade them to bearer tokens.
 */
export async function accountOfAccessToken(provider: Provider, req: Request): Promise<string> {
  const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(req.get('authorization') ?? '');
  if (!match) {
    throw new AppError('invalid_token', 401, 'A Bearer access token is required', { 'WWW-Authenticate': 'Bearer' });
  }
  const token = await provider.AccessToken.find(match[1]!);
  if (!token || token.isExpired || !token.accountId || token.jkt || token['x5t#S256']) throw invalidToken();
  const grant = token.grantId ? await provider.Grant.find(token.grantId, { ignoreExpiration: true }) : undefined;
  if (!grant || grant.isExpired || grant.clientId !== token.clientId || grant.accountId !== token.accountId) throw invalidToken();
  return token.accountId;
}
