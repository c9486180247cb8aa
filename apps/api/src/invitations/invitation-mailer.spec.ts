import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { loadConfig } from '@app/config';
import { InvitationMailer } from './invitation-mailer';

describe('InvitationMailer without SMTP_URL', () => {
  it('logs that a message would have been sent, without the link or its token', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const mailer = new InvitationMailer(loadConfig({ PUBLIC_BASE_URL: 'http://api.test' }));
      const token = 'tok3n-tok3n-tok3n-tok3n-tok3n-tok3n-tok3n-x';
      await mailer.send({
        invitationId: 'inv-1',
        to: 'new.user@example.com',
        fullName: 'New User',
        accountName: 'Acme',
        roleName: 'Viewer',
        link: `http://api.test/invitations/accept/?token=${token}`,
        expiresAt: new Date(),
      });
      expect(log).toHaveBeenCalledTimes(1);
      const line = String(log.mock.calls[0][0]);
      expect(line).toContain('inv-1');
      expect(line).toContain('new.user@example.com');
      expect(line).not.toContain(token);
      expect(line).not.toContain('invitations/accept');
    } finally {
      log.mockRestore();
    }
  });
});
