import type { Request } from 'express';
import type Provider from 'oidc-provider';
import type { Context } from '../../context.ts';
import { AppError, errors } from '../../http/app-error.ts';
import { impersonationOfToken, isImpersonationToken } from '../impersonation/impersonation.oidc.ts';

const invalidToken = () =>
  new AppError('invalid_token', 401, 'A valid access token is required', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

/** Who an access token speaks for. */
export interface TokenHolder {
  accountId: string;
  /** For a token made by an operator's impersonation: the one tenant it was made for. */
  impersonatedTenantId: string | null;
}

/**
 * The account behind a Bearer access token issued by our own provider, checked the way
 * oidc-provider's userinfo endpoint checks it: the token exists and is unexpired, names an
 * account, and its grant still exists for the same client and account (a revoked grant or a
 * signed-out person ends it). Sender-constrained tokens (DPoP, mTLS) are refused: this endpoint
 * cannot check their proof, so accepting them would downgrade them to bearer tokens.
 *
 * A token made by an impersonation passes the same rule as in findAccount (src/oidc/account.ts):
 * its record must still exist and its operator still be an admin, so revoking the role ends it
 * here as at userinfo. The tenant it was made for is answered, as it speaks for no other.
 */
export async function accountOfAccessToken(ctx: Pick<Context, 'store' | 'now' | 'db'>, provider: Provider, req: Request): Promise<TokenHolder> {
  const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(req.get('authorization') ?? '');
  if (!match) {
    throw new AppError('invalid_token', 401, 'A Bearer access token is required', { 'WWW-Authenticate': 'Bearer' });
  }
  const token = await provider.AccessToken.find(match[1]!);
  if (!token || token.isExpired || !token.accountId || token.jkt || token['x5t#S256']) throw invalidToken();
  const grant = token.grantId ? await provider.Grant.find(token.grantId, { ignoreExpiration: true }) : undefined;
  if (!grant || grant.isExpired || grant.clientId !== token.clientId || grant.accountId !== token.accountId) throw invalidToken();
  if (!isImpersonationToken(token)) return { accountId: token.accountId, impersonatedTenantId: null };
  const impersonation = await impersonationOfToken(ctx, token);
  if (!impersonation || impersonation.account_id !== token.accountId) throw invalidToken();
  return { accountId: token.accountId, impersonatedTenantId: impersonation.tenant_id };
}

/** The account reading `tenantId`: an impersonated token reads only the tenant it was made for. */
export function accountForTenant(holder: TokenHolder, tenantId: string): string {
  if (holder.impersonatedTenantId !== null && holder.impersonatedTenantId !== tenantId) throw errors.forbidden();
  return holder.accountId;
}
