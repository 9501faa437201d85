import { AppError } from '../http/app-error.ts';

/**
 * Errors of upstream (Google, Microsoft) sign-in and linking. The browser redirects carry the
 * `type` back to /login or /profile as `?error=<type>`, where the portal translates it.
 */
export const upstreamErrors = {
  notConfigured: () => new AppError('oauth/provider_not_configured', 404, 'This sign-in provider is not available'),
  unavailable: () => new AppError('oauth/provider_unavailable', 503, 'The sign-in provider cannot be reached, please try again later'),
  stateMismatch: () => new AppError('oauth/state_mismatch', 400, 'The sign-in could not be verified, please start again'),
  accessDenied: () => new AppError('oauth/access_denied', 400, 'Sign-in was cancelled at the provider'),
  providerError: () => new AppError('oauth/provider_error', 502, 'The sign-in provider answered with an error'),
  notLinked: () =>
    new AppError('oauth/not_linked', 403, 'This account is not linked yet: sign in another way, then link it from your profile'),
  identityInUse: () => new AppError('oauth/identity_in_use', 409, 'This account is already linked to another Nyckel account'),
  tenantNotAllowed: () => new AppError('oauth/tenant_not_allowed', 403, 'Your organisation may not sign in here'),
};
