import type { RequestHandler } from 'express';
import { profileErrors } from './profile-errors.ts';

/**
 * The second CSRF layer of the profile's cookie-authenticated POSTs, beside the origin check: the
 * body must be `application/json`. A cross-site HTML form can only send urlencoded, multipart or
 * text/plain, and a cross-site fetch with a JSON content type needs a CORS preflight that Nyckel
 * never grants. DELETE needs no body and cannot be sent by a form at all.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  next(req.is('application/json') ? undefined : profileErrors.jsonRequired());
};
