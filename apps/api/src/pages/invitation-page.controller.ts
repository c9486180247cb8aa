import { Body, Controller, Get, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { INVITATION_PAGE_PATH, InvitationsService, type LinkCheck, passwordProblems } from '@app/domain';
import { sendPage } from '../common/html';
import { acceptedView, linkProblemView, passwordFormView } from './invitation-page.views';
import { PageErrorFilter } from './page-error.filter';
import { InvitationAcceptLimitGuard } from './page-rate-limit.guard';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The service-hosted password page of the invitation e-mail, outside the API base path.
 *
 * No CSRF token and no session: the 256-bit invitation token, sent in the form body, is the only
 * authority the form has. A cross-site page cannot submit the form usefully without knowing the
 * token, and whoever knows the token may accept the invitation anyway; the browser holds no
 * ambient credential (cookie) for a forged request to borrow. So the page sets no cookie at all.
 */
@Public()
@ApiExcludeController()
@UseFilters(PageErrorFilter)
@Controller(INVITATION_PAGE_PATH)
export class InvitationPageController {
  private readonly action = `/${INVITATION_PAGE_PATH}/`;

  constructor(private readonly invitations: InvitationsService) {}

  @Get()
  async show(@Query('token') token: unknown, @Res() response: Response): Promise<void> {
    const check = await this.invitations.check(text(token));
    if (!check.ok) return this.problem(response, check);
    this.form(response, 200, text(token), check, []);
  }

  @Post()
  @UseGuards(InvitationAcceptLimitGuard)
  async submit(@Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const token = text(body.token);
    const check = await this.invitations.check(token);
    if (!check.ok) return this.problem(response, check);
    const password = text(body.password);
    const problems = passwordProblems(password, text(body.password_confirmation), check.invitation.email);
    if (problems.length > 0) return this.form(response, 400, token, check, problems);
    const accepted = await this.invitations.accept(token, password);
    if (!accepted.ok) return this.problem(response, accepted);
    const view = acceptedView(accepted.invitation.email, accepted.accountName);
    sendPage(response, 200, view.title, view.body);
  }

  private form(response: Response, status: number, token: string, check: LinkCheck & { ok: true }, problems: ReturnType<typeof passwordProblems>): void {
    const view = passwordFormView({
      action: this.action,
      token,
      email: check.invitation.email,
      fullName: check.invitation.fullName,
      accountName: check.accountName,
      problems,
    });
    sendPage(response, status, view.title, view.body);
  }

  private problem(response: Response, check: LinkCheck & { ok: false }): void {
    const view = linkProblemView(check.problem);
    sendPage(response, view.status, view.title, view.body);
  }
}
