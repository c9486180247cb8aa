import type { CookieOptions, Request, Response } from 'express';
import type { AppConfig } from '@app/config';
import { PANEL_ROOT } from '../panel-paths';

export const SESSION_COOKIE = 'cc_panel_session';
/** Pre-sign-in nonce of the sign-in form's CSRF token (signed double submit). */
export const SIGN_IN_COOKIE = 'cc_panel_sign_in';

/** Secure whenever the panel is served over https or runs in production. */
export const secureCookies = (config: AppConfig): boolean => config.nodeEnv === 'production' || config.publicBaseUrl.startsWith('https:');

/**
 * httpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs; a link from an e-mail
 * still opens the panel signed in), limited to the panel's path, and a browser-session cookie:
 * the server decides when the session ends.
 */
export function cookieOptions(config: AppConfig): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure: secureCookies(config), path: PANEL_ROOT.slice(0, -1) };
}

export function setCookie(response: Response, config: AppConfig, name: string, value: string): void {
  response.cookie(name, value, cookieOptions(config));
}

export function clearCookie(response: Response, config: AppConfig, name: string): void {
  response.clearCookie(name, cookieOptions(config));
}

/** Reads one cookie from the Cookie header (no cookie-parser middleware in this app). */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    return /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : null;
  }
  return null;
}
