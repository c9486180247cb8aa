import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { type InvitationEmail, InvitationMailSender, type InvitationSender } from '@app/domain';
import { APP_CONFIG } from '../config/config.module';

export type { InvitationEmail } from '@app/domain';

/** The api's invitation mailer: the shared sender (libs/domain) with the Nest logger. */
@Injectable()
export class InvitationMailer implements InvitationSender {
  private readonly logger = new Logger(InvitationMailer.name);
  private readonly sender: InvitationMailSender;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.sender = new InvitationMailSender(config.smtpUrl, config.publicBaseUrl, (line) => this.logger.log(line));
  }

  send(email: InvitationEmail): Promise<void> {
    return this.sender.send(email);
  }
}
