import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api-error';
import { InvalidTokenError } from './auth-errors';
import { PANEL_ROUTE, PUBLIC_ROUTE, REQUIRED_SCOPES, TENANT_FREE } from './auth.decorators';
import type { Principal } from './principal';
import { ScopesGuard } from './scopes.guard';
import { TenantGuard } from './tenant.guard';
import { TokenGuard } from './token.guard';

function context(metadata: Record<string, unknown>, request: Record<string, unknown>): ExecutionContext {
  const handler = () => undefined;
  for (const [key, value] of Object.entries(metadata)) Reflect.defineMetadata(key, value, handler);
  return {
    getHandler: () => handler,
    getClass: () => class {},
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
}

const principal = (scopes: string[], accountIds: string[]): Principal => ({ credentialId: 'c', clientId: 'x', scopes: new Set(scopes), accountIds });
const request = (p: Principal | undefined, header?: string) => ({ principal: p, header: (name: string) => (name === 'x-service-account-id' ? header : undefined) });
const code = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : 'other';
  }
};

describe('ScopesGuard', () => {
  const guard = new ScopesGuard(new Reflector());
  it('denies a route that declares nothing (default deny)', () => {
    expect(code(() => guard.canActivate(context({}, request(principal(['a:read'], [])))))).toBe('route_not_authorized');
  });
  it('requires every declared scope', () => {
    const ctx = (scopes: string[]) => context({ [REQUIRED_SCOPES]: ['devices:read', 'devices:label:write'] }, request(principal(scopes, [])));
    expect(code(() => guard.canActivate(ctx(['devices:read'])))).toBe('insufficient_scope');
    expect(guard.canActivate(ctx(['devices:read', 'devices:label:write']))).toBe(true);
  });
  it('lets public routes through without a principal', () => {
    expect(guard.canActivate(context({ [PUBLIC_ROUTE]: true }, request(undefined)))).toBe(true);
  });
  it('stands aside for web panel routes (their own session guard decides)', () => {
    expect(guard.canActivate(context({ [PANEL_ROUTE]: 'session' }, request(undefined)))).toBe(true);
    expect(guard.canActivate(context({ [PANEL_ROUTE]: 'public' }, request(undefined)))).toBe(true);
  });
});

describe('TenantGuard', () => {
  const guard = new TenantGuard(new Reflector());
  const A = '00000000-0000-7000-8000-00000000000a';
  const B = '00000000-0000-7000-8000-00000000000b';

  it('implies the only account, requires a choice among several, refuses others', () => {
    const single = request(principal([], [A])) as Record<string, unknown>;
    expect(guard.canActivate(context({}, single))).toBe(true);
    expect(single.accountId).toBe(A);
    expect(code(() => guard.canActivate(context({}, request(principal([], [A, B])))))).toBe('account_selection_required');
    const chosen = request(principal([], [A, B]), B.toUpperCase()) as Record<string, unknown>;
    expect(guard.canActivate(context({}, chosen))).toBe(true);
    expect(chosen.accountId).toBe(B);
    expect(code(() => guard.canActivate(context({}, request(principal([], [A]), B))))).toBe('account_not_allowed');
    expect(code(() => guard.canActivate(context({}, request(principal([], [])))))).toBe('account_not_allowed');
  });

  it('lets tenant-free routes work across the allow-list', () => {
    expect(guard.canActivate(context({ [TENANT_FREE]: true }, request(principal([], [A, B]))))).toBe(true);
  });

  it('selects no tenant for public and web panel routes', () => {
    for (const metadata of [{ [PUBLIC_ROUTE]: true }, { [PANEL_ROUTE]: 'session' }, { [PANEL_ROUTE]: 'public' }]) {
      const anonymous = request(undefined) as Record<string, unknown>;
      expect(guard.canActivate(context(metadata, anonymous))).toBe(true);
      expect(anonymous.accountId).toBeUndefined();
    }
  });
});

describe('TokenGuard', () => {
  const guard = new TokenGuard(new Reflector());

  it('passes a database outage during the credential lookup on (a 503), instead of calling the token invalid', () => {
    const timeout = new Error('timeout exceeded when trying to connect');
    expect(() => guard.handleRequest(timeout, undefined, undefined)).toThrow(timeout);
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    expect(() => guard.handleRequest(cancelled, undefined, undefined)).toThrow(cancelled);
  });

  it('passes any other failure of the credential lookup on (a 500 with a log line), instead of calling the token invalid', () => {
    const gone = Object.assign(new Error('prepared statement "credentials.findByClientId" does not exist'), { code: '26000' });
    expect(() => guard.handleRequest(gone, undefined, undefined)).toThrow(gone);
  });

  it('calls a token passport-jwt refuses (reported as info) an invalid token (401), and passes the credential\'s own refusal on', () => {
    expect(() => guard.handleRequest(null, undefined, new Error('invalid signature'))).toThrow(InvalidTokenError);
    expect(() => guard.handleRequest(null, undefined, new Error('jwt expired'))).toThrow('The access token has expired.');
    expect(() => guard.handleRequest(null, false, undefined)).toThrow(InvalidTokenError);
    const revoked = new InvalidTokenError('The credential behind this token is revoked.');
    expect(() => guard.handleRequest(revoked, undefined, undefined)).toThrow(revoked);
  });
});
