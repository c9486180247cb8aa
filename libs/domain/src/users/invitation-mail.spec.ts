import { jest } from '@jest/globals';
import { InvitationMailSender } from './invitation-mail';

describe('InvitationMailSender without SMTP_URL', () => {
  it('logs that a message would have been sent, without the link or its token', async () => {
    const log = jest.fn<(line: string) => void>();
    const mailer = new InvitationMailSender(undefined, 'http://api.test', log);
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
  });
});
