import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

/** The prompt an authorization request raises when it asks for no scope Nyckel knows. */
export const noKnownScopePrompt = 'nyckel_scope';

const description = 'none of the requested scopes is supported';

/**
 * RFC 6749 section 3.3: a request without a scope the server knows (`scope=admin`, or no scope
 * at all) must get a default or fail with `invalid_scope`. oidc-provider drops unknown scopes and
 * only notices there is nothing to grant after the sign-in, with `access_denied` ("the person
 * refused"), once the person has typed their password. This prompt comes first in the policy:
 * prompt=none answers `invalid_scope` at once, and any other request is sent to the interaction
 * route, which answers the same before any sign-in page (interaction.routes.ts).
 */
export function noKnownScopePromptFirst(policy: interactionPolicy.Prompt[]): void {
  const check = new interactionPolicy.Check('no_known_scope', description, 'invalid_scope', (koa: KoaContextWithOIDC) =>
    koa.oidc.requestParamOIDCScopes.size === 0 ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT,
  );
  policy.unshift(new interactionPolicy.Prompt({ name: noKnownScopePrompt, requestable: false }, check));
}

/** The interaction's answer to that prompt. */
export const noKnownScopeResult = { error: 'invalid_scope', error_description: description };
