import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The platform may invite a company's first administrator (ops CLI `users:invite-admin`), so an
 * invitation can carry COMPANY_ADMIN. The public API still refuses that role in its own code.
 */
export class CompanyAdminInvitations1763770100001 implements MigrationInterface {
  name = 'CompanyAdminInvitations1763770100001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE user_invitations DROP CONSTRAINT user_invitations_role_check`);
    await q.query(
      `ALTER TABLE user_invitations ADD CONSTRAINT user_invitations_role_check CHECK (role IN ('COMPANY_ADMIN', 'MANAGER', 'OPERATOR', 'VIEWER'))`,
    );
  }

  /** Administrator invitations cannot exist under the old rule; the users they created stay. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM user_invitations WHERE role = 'COMPANY_ADMIN'`);
    await q.query(`ALTER TABLE user_invitations DROP CONSTRAINT user_invitations_role_check`);
    await q.query(`ALTER TABLE user_invitations ADD CONSTRAINT user_invitations_role_check CHECK (role IN ('MANAGER', 'OPERATOR', 'VIEWER'))`);
  }
}
