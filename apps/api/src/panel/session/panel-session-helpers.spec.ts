import type { Request } from 'express';
import { loadConfig } from '@app/config';
import { safeNextPath } from '../panel-paths';
import { newSignInNonce, signInToken, tokensMatch } from './csrf';
import { cookieOptions, readCookie, secureCookies } from './panel-cookies';

describe('panel session helpers', () => {
  it('compares CSRF tokens exactly, refusing missing, empty and non-string values', () => {
    expect(tokensMatch('abc', 'abc')).toBe(true);
    expect(tokensMatch('abd', 'abc')).toBe(false);
    expect(tokensMatch('abcd', 'abc')).toBe(false);
    for (const bad of [undefined, null, '', ['abc'], 42]) expect(tokensMatch(bad, 'abc')).toBe(false);
    expect(tokensMatch('', '')).toBe(false);
  });

  it('binds the sign-in token to its nonce and key', () => {
    const key = Buffer.alloc(32, 1);
    const nonce = newSignInNonce();
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signInToken(key, nonce)).toBe(signInToken(key, nonce));
    expect(signInToken(key, nonce)).not.toBe(signInToken(key, newSignInNonce()));
    expect(signInToken(key, nonce)).not.toBe(signInToken(Buffer.alloc(32, 2), nonce));
  });

  it('marks cookies Secure in production or behind an https base URL, and scopes them to /panel', () => {
    expect(secureCookies(loadConfig({ PUBLIC_BASE_URL: 'http://localhost:3000' }))).toBe(false);
    expect(secureCookies(loadConfig({ PUBLIC_BASE_URL: 'https://panel.example.com' }))).toBe(true);
    const production = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://db/x',
      JWT_SIGNING_KEYS: 'k1:0123456789abcdef0123456789abcdef',
      SECRETS_KEY: '0123456789abcdef0123456789abcdef',
      PUBLIC_BASE_URL: 'http://internal:3000',
    });
    expect(secureCookies(production)).toBe(true);
    expect(cookieOptions(production)).toEqual({ httpOnly: true, sameSite: 'lax', secure: true, path: '/panel' });
  });

  it('reads one well-formed cookie value', () => {
    const request = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } }) as unknown as Request;
    expect(readCookie(request('a=1; cc_panel_session=abc_DEF-9; b=2'), 'cc_panel_session')).toBe('abc_DEF-9');
    expect(readCookie(request('cc_panel_session=bad value'), 'cc_panel_session')).toBeNull();
    expect(readCookie(request('x_cc_panel_session=abc'), 'cc_panel_session')).toBeNull();
    expect(readCookie(request(), 'cc_panel_session')).toBeNull();
  });

  it('allows only panel pages as the destination after sign-in', () => {
    expect(safeNextPath('/panel/webhooks/')).toBe('/panel/webhooks/');
    expect(safeNextPath('/panel/credentials')).toBe('/panel/credentials');
    for (const bad of ['https://evil.example/', '//evil.example/panel/', '/panel/../api/', '/panel//x', '/panel/sign-in/', '/api/public/v1/', '/panel/a?b', 42]) {
      expect(safeNextPath(bad)).toBeNull();
    }
  });
});
