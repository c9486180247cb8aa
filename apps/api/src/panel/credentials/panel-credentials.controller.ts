import { Body, Controller, Get, Inject, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AppConfig } from '@app/config';
import { CredentialAlreadyCreatedError, CredentialsService } from '@app/domain';
import { API_PREFIX } from '../../common/public-api-controller';
import { APP_CONFIG } from '../../config/config.module';
import { PanelErrorFilter } from '../panel-error.filter';
import { PanelNotFound } from '../panel-errors';
import { PANEL_PATH, panelPath } from '../panel-paths';
import { CREDENTIAL_ROLES } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelSession } from '../session/panel-session.guard';
import { CREDENTIAL_NAME_MAX_LENGTH, credentialCreatedView, credentialFormView, credentialListView, revokeConfirmView } from './credentials.views';
import { type FieldProblem, formList, formText } from '../ui/form-parts';
import { newSubmission, recordIdFor, submissionFrom } from '../ui/form-submission';
import { redirectTo, withNotice } from '../ui/layout';
import { noticeFrom } from '../ui/notices';
import { PanelPages } from '../ui/panel-pages';
import { isScope } from '@app/vocabulary';

/**
 * API credentials of the signed-in company (company administrators only). A credential made here
 * is owned by the company and allowed on its account only; its secret is shown once, on the
 * response to the creating POST, and stored only as a hash.
 */
@PanelSession(...CREDENTIAL_ROLES)
@ApiExcludeController()
@UseFilters(PanelErrorFilter)
@Controller(`${PANEL_PATH}/credentials`)
export class PanelCredentialsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialsService,
    private readonly pages: PanelPages,
  ) {}

  @Get()
  async list(@Panel() panel: PanelContext, @Res() response: Response, @Query('notice') notice: unknown): Promise<void> {
    this.pages.send(response, panel, credentialListView(await this.credentials.listOwned(panel.account.id)), noticeFrom(notice));
  }

  @Get('new')
  form(@Panel() panel: PanelContext, @Res() response: Response): void {
    this.pages.send(response, panel, credentialFormView(panel, { submission: newSubmission(), name: '', scopes: [], problems: [] }));
  }

  @Post()
  async create(@Panel() panel: PanelContext, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const name = formText(body.name).trim();
    const scopes = formList(body.scopes);
    const submission = submissionFrom(body.submission);
    const problems: FieldProblem[] = [];
    if (!name) problems.push({ field: 'name', message: 'Enter a name for the credential.' });
    if (name.length > CREDENTIAL_NAME_MAX_LENGTH) problems.push({ field: 'name', message: `The name can have at most ${CREDENTIAL_NAME_MAX_LENGTH} characters.` });
    if (scopes.length === 0) problems.push({ field: 'scopes', message: 'Choose at least one scope.' });
    if (scopes.some((scope) => !isScope(scope))) problems.push({ field: 'scopes', message: 'Choose scopes from the list only.' });
    if (problems.length > 0) return this.pages.send(response, panel, credentialFormView(panel, { submission, name, scopes: scopes.filter(isScope), problems }));
    let created;
    try {
      created = await this.credentials.create({ id: recordIdFor(panel.account.id, 'credential', submission), name, scopes, accountIds: [panel.account.id], ownerAccountId: panel.account.id });
    } catch (error) {
      if (error instanceof CredentialAlreadyCreatedError) return redirectTo(response, withNotice(panelPath('credentials'), 'credential_already_created'));
      throw error;
    }
    this.pages.send(response, panel, credentialCreatedView(panel, created, `${this.config.publicBaseUrl}/${API_PREFIX}/oauth/token/`));
  }

  @Get(':credential_id/revoke')
  async confirmRevoke(@Panel() panel: PanelContext, @Param('credential_id') credentialId: string, @Res() response: Response): Promise<void> {
    const credential = await this.credentials.getOwned(panel.account.id, credentialId);
    if (!credential) throw new PanelNotFound();
    if (credential.revoked_at) return redirectTo(response, withNotice(panelPath('credentials'), 'credential_already_revoked'));
    this.pages.send(response, panel, revokeConfirmView(panel, credential));
  }

  @Post(':credential_id/revoke')
  async revoke(@Panel() panel: PanelContext, @Param('credential_id') credentialId: string, @Res() response: Response): Promise<void> {
    const outcome = await this.credentials.revokeOwned(panel.account.id, credentialId);
    if (outcome === 'not_found') throw new PanelNotFound();
    redirectTo(response, withNotice(panelPath('credentials'), outcome === 'revoked' ? 'credential_revoked' : 'credential_already_revoked'));
  }
}
