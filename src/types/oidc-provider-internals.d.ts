/** The one oidc-provider internal Nyckel calls (src/oidc/key-refresh.ts). */
declare module 'oidc-provider/lib/helpers/initialize_keystore.js' {
  /** Loads `jwks` into the provider bound as `this`, replacing its keystore. */
  export default function initialize(this: unknown, jwks: { keys: unknown[] }): void;
}
