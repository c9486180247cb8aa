import { Body, Controller, Get, Inject, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { AppConfig } from '@app/config';
import { NoPersonLimit } from '../../common/rate-limits/rate-limits';
import { APP_CONFIG } from '../../config/config.module';
import { PanelErrorFilter } from '../panel-error.filter';
import { PanelCsrfRejected } from '../panel-errors';
import { PANEL_PATH, panelPath, safeNextPath, SIGN_IN_PATH } from '../panel-paths';
import { CSRF_FIELD, newSignInNonce, signInToken, tokensMatch } from '../session/csrf';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, SIGN_IN_COOKIE } from '../session/panel-cookies';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelPublic, PanelSession } from '../session/panel-session.guard';
import { PanelSessionsRepository } from '../session/panel-sessions.repository';
import { redirectTo, withNotice } from '../ui/layout';
import { noticeFrom } from '../ui/notices';
import { PanelPages } from '../ui/panel-pages';
import { BAD_CREDENTIALS, signInView, throttledView } from './sign-in.views';
import { EMAIL_MAX_LENGTH, PASSWORD_INPUT_MAX_LENGTH, SignInService } from './sign-in.service';
import { SignInThrottle } from './sign-in-throttle';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Sign-in (open to anyone: its form has its own CSRF check and rate limits) and sign-out (behind
 * the session, like every other panel page).
 */
@PanelPublic()
@ApiExcludeController()
@UseFilters(PanelErrorFilter)
@Controller(PANEL_PATH)
export class SignInController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: PanelSessionsRepository,
    private readonly signIn: SignInService,
    private readonly throttle: SignInThrottle,
    private readonly pages: PanelPages,
  ) {}

  @Get('sign-in')
  async form(@Req() request: Request, @Res() response: Response, @Query('next') nextParam: unknown, @Query('notice') notice: unknown): Promise<void> {
    const next = safeNextPath(nextParam);
    if ((await this.sessions.resolve(readCookie(request, SESSION_COOKIE))).ok) return redirectTo(response, next ?? panelPath());
    const csrfToken = this.signInCsrf(request, response);
    this.pages.send(response, null, signInView({ csrfToken, email: '', next, error: null, missing: { email: false, password: false } }), noticeFrom(notice));
  }

  @Post('sign-in')
  async submit(@Req() request: Request, @Res() response: Response, @Body() body: Record<string, unknown>): Promise<void> {
    const nonce = readCookie(request, SIGN_IN_COOKIE);
    if (!nonce || !tokensMatch(body[CSRF_FIELD], signInToken(this.config.secretsKey, nonce))) throw new PanelCsrfRejected('sign-in form token');
    const csrfToken = signInToken(this.config.secretsKey, nonce);
    const email = text(body.email).trim().toLowerCase().slice(0, EMAIL_MAX_LENGTH);
    const password = text(body.password).slice(0, PASSWORD_INPUT_MAX_LENGTH);
    const next = safeNextPath(body.next);
    if (!email || !password) {
      const view = signInView({ csrfToken, email, next, error: null, missing: { email: !email, password: !password }, status: 400 });
      return this.pages.send(response, null, view);
    }
    // Counted before the password check: parallel guesses cannot all pass (see SignInThrottle).
    const throttle = await this.throttle.attempt(request.ip, email);
    if (!throttle.allowed) {
      response.set('Retry-After', String(throttle.retryAfterSeconds));
      return this.pages.send(response, null, throttledView(csrfToken, email, next, throttle.retryAfterSeconds));
    }
    const user = await this.signIn.verify(email, password);
    if (!user) return this.pages.send(response, null, signInView({ csrfToken, email, next, error: BAD_CREDENTIALS, missing: { email: false, password: false }, status: 400 }));
    await this.throttle.succeeded(request.ip, email);
    const token = await this.sessions.start(user.userId, user.accountId);
    clearCookie(response, this.config, SIGN_IN_COOKIE);
    setCookie(response, this.config, SESSION_COOKIE, token);
    redirectTo(response, next ?? panelPath());
  }

  @Post('sign-out')
  @PanelSession()
  @NoPersonLimit()
  async signOut(@Panel() panel: PanelContext, @Res() response: Response): Promise<void> {
    await this.sessions.endById(panel.sessionId);
    clearCookie(response, this.config, SESSION_COOKIE);
    redirectTo(response, withNotice(SIGN_IN_PATH, 'signed_out'));
  }

  /** Keeps the nonce of an open sign-in page, so that two tabs do not invalidate each other. */
  private signInCsrf(request: Request, response: Response): string {
    let nonce = readCookie(request, SIGN_IN_COOKIE);
    if (!nonce || nonce.length !== 43) {
      nonce = newSignInNonce();
      setCookie(response, this.config, SIGN_IN_COOKIE, nonce);
    }
    return signInToken(this.config.secretsKey, nonce);
  }
}
