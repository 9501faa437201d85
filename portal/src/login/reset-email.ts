/**
 * sessionStorage key of the email the reset page starts with: set by the links that lead there
 * (Forgot password?, and the one beside a lock), read by /login/reset-password.
 */
export const RESET_EMAIL_KEY = 'reset_email';
