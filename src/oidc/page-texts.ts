/**
 * The words of the pages oidc-provider's front channel shows (pages.ts), in the languages Nyckel
 * speaks. An error page speaks to the person in the browser: what happened and what to do, in
 * their language. The OAuth error code and oidc-provider's English description stay on it as a
 * small reference line for the application's developers.
 */
export type PageLanguage = 'en' | 'sv';

/** Whether the person was signing in (authorization) or out (RP-initiated logout) when it failed. */
export type PageFlow = 'sign-in' | 'sign-out';

export const pageTexts = {
  en: {
    errorTitle: { 'sign-in': 'Sign-in could not continue', 'sign-out': 'Sign-out could not continue' },
    reference: "For the application's developers:",
    back: 'Back to sign-in',
    logoutTitle: 'Sign out of Nyckel?',
    logoutBody: 'You will be signed out of Nyckel and of the applications you opened with it.',
    logoutYes: 'Yes, sign me out',
    logoutNo: 'No, stay signed in',
    logoutAppOnly: (app: string) => `No, only sign me out of ${app}`,
    doneTitle: 'You are signed out',
    doneBody: 'You can close this page.',
    tooManyTitle: 'Too many attempts from your network',
    tooManyBody: 'Many sign-ins and sign-outs have come from your network in the last minute. Wait a moment and try again.',
    notFoundTitle: 'Page not found',
    notFoundBody: 'There is no page at this address. It may be mistyped, or the link may be out of date.',
  },
  sv: {
    errorTitle: { 'sign-in': 'Inloggningen kunde inte fortsätta', 'sign-out': 'Utloggningen kunde inte fortsätta' },
    reference: 'För programmets utvecklare:',
    back: 'Tillbaka till inloggningen',
    logoutTitle: 'Logga ut från Nyckel?',
    logoutBody: 'Du loggas ut från Nyckel och från de program du öppnat med det.',
    logoutYes: 'Ja, logga ut mig',
    logoutNo: 'Nej, förbli inloggad',
    logoutAppOnly: (app: string) => `Nej, logga bara ut mig från ${app}`,
    doneTitle: 'Du är utloggad',
    doneBody: 'Du kan stänga den här sidan.',
    tooManyTitle: 'För många försök från ditt nätverk',
    tooManyBody: 'Många in- och utloggningar har kommit från ditt nätverk den senaste minuten. Vänta en stund och försök igen.',
    notFoundTitle: 'Sidan finns inte',
    notFoundBody: 'Det finns ingen sida på den här adressen. Den kan vara felskriven, eller länken inaktuell.',
  },
} as const;

type Sentences = Record<PageLanguage, string>;

const misconfigured: Sentences = {
  en: "Contact the application's owner: it is not set up correctly with Nyckel.",
  sv: 'Kontakta den som ansvarar för programmet: det är inte rätt inställt hos Nyckel.',
};

/** What the person is told, by error code, when a sign-in cannot go on (and cannot be sent back to the application). */
const signInErrors: Readonly<Record<string, Sentences>> = {
  invalid_client: {
    en: `The application that sent you here is not known to Nyckel. ${misconfigured.en}`,
    sv: `Programmet som skickade dig hit är okänt för Nyckel. ${misconfigured.sv}`,
  },
  invalid_redirect_uri: {
    en: `The application asked Nyckel to send you back to an address it has not registered. ${misconfigured.en}`,
    sv: `Programmet bad Nyckel skicka dig tillbaka till en adress som det inte har registrerat. ${misconfigured.sv}`,
  },
  invalid_request: {
    en: "The application's sign-in request was incomplete or not valid. Go back to the application and try again; if it happens again, contact the application's owner.",
    sv: 'Programmets begäran om inloggning var ofullständig eller ogiltig. Gå tillbaka till programmet och försök igen; händer det igen, kontakta den som ansvarar för programmet.',
  },
  invalid_request_uri: {
    en: "The application's sign-in request has expired or was already used. Go back to the application and try again.",
    sv: 'Programmets begäran om inloggning har gått ut eller redan använts. Gå tillbaka till programmet och försök igen.',
  },
  request_uri_not_supported: {
    en: `The application sent its sign-in request in a form Nyckel does not accept. ${misconfigured.en}`,
    sv: `Programmet skickade sin begäran om inloggning i ett format som Nyckel inte tar emot. ${misconfigured.sv}`,
  },
  unsupported_response_type: {
    en: `The application asked for a kind of sign-in that Nyckel does not let it use. ${misconfigured.en}`,
    sv: `Programmet bad om ett slags inloggning som Nyckel inte låter det använda. ${misconfigured.sv}`,
  },
  login_required: {
    en: 'You need to sign in again. Go back to the application and sign in.',
    sv: 'Du behöver logga in igen. Gå tillbaka till programmet och logga in.',
  },
  access_denied: {
    en: 'The sign-in was cancelled or not allowed. Go back to the application and try again.',
    sv: 'Inloggningen avbröts eller tilläts inte. Gå tillbaka till programmet och försök igen.',
  },
  temporarily_unavailable: {
    en: 'Nyckel cannot sign you in right now. Wait a moment, then go back to the application and try again.',
    sv: 'Nyckel kan inte logga in dig just nu. Vänta en stund, gå sedan tillbaka till programmet och försök igen.',
  },
  server_error: {
    en: 'Something went wrong at Nyckel. Go back to the application and try again in a moment.',
    sv: 'Något gick fel hos Nyckel. Gå tillbaka till programmet och försök igen om en stund.',
  },
};
// The same story under another code.
const signInAliases: Readonly<Record<string, string>> = {
  request_not_supported: 'request_uri_not_supported',
  invalid_request_object: 'request_uri_not_supported',
  unsupported_response_mode: 'unsupported_response_type',
  unauthorized_client: 'unsupported_response_type',
  interaction_required: 'login_required',
  consent_required: 'login_required',
};
const signInFallback: Sentences = {
  en: "Go back to the application and try again. If it happens again, contact the application's owner.",
  sv: 'Gå tillbaka till programmet och försök igen. Händer det igen, kontakta den som ansvarar för programmet.',
};

/** The same, when a sign-out (RP-initiated logout, its confirmation or its last page) cannot go on. */
const signOutErrors: Readonly<Record<string, Sentences>> = {
  invalid_client: signInErrors.invalid_client!,
  invalid_request: {
    en: "The application's sign-out request was not valid. Go back to the application and sign out again; if it happens again, contact the application's owner.",
    sv: 'Programmets begäran om utloggning var ogiltig. Gå tillbaka till programmet och logga ut igen; händer det igen, kontakta den som ansvarar för programmet.',
  },
  temporarily_unavailable: {
    en: 'Nyckel cannot sign you out right now. Wait a moment, then go back to the application and sign out again.',
    sv: 'Nyckel kan inte logga ut dig just nu. Vänta en stund, gå sedan tillbaka till programmet och logga ut igen.',
  },
  server_error: {
    en: 'Something went wrong at Nyckel. Go back to the application and sign out again in a moment.',
    sv: 'Något gick fel hos Nyckel. Gå tillbaka till programmet och logga ut igen om en stund.',
  },
};
/**
 * oidc-provider answers an unregistered post_logout_redirect_uri with a plain invalid_request;
 * only its description (lib/actions/end_session.js) tells this misconfiguration from a bad
 * id_token_hint. Should the wording change in an upgrade, the page falls back to invalid_request's.
 */
const unregisteredLogoutRedirect: Sentences = {
  en: `The application asked Nyckel to send you back to an address it has not registered, so you were not signed out. ${misconfigured.en}`,
  sv: `Programmet bad Nyckel skicka dig tillbaka till en adress som det inte har registrerat, så du loggades inte ut. ${misconfigured.sv}`,
};
const signOutFallback: Sentences = {
  en: "Go back to the application and sign out again. If it happens again, contact the application's owner.",
  sv: 'Gå tillbaka till programmet och logga ut igen. Händer det igen, kontakta den som ansvarar för programmet.',
};

// Own keys only: an unexpected code such as `constructor` must not find Object's.
const lookUp = (table: Readonly<Record<string, Sentences>>, code: string) => (Object.hasOwn(table, code) ? table[code] : undefined);

/** What to tell the person about an OAuth error `code` (with oidc-provider's English `description`). */
export function errorExplanation(language: PageLanguage, flow: PageFlow, code: string, description?: string): string {
  if (flow === 'sign-out') {
    if (code === 'invalid_request' && description === 'post_logout_redirect_uri not registered') return unregisteredLogoutRedirect[language];
    return (lookUp(signOutErrors, code) ?? signOutFallback)[language];
  }
  const canonical = Object.hasOwn(signInAliases, code) ? signInAliases[code]! : code;
  return (lookUp(signInErrors, canonical) ?? signInFallback)[language];
}
