import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { findSignInCandidate } from '../session/panel-sessions.repository';
import { hashSecret, verifySecret } from '@app/domain';
import { type AccountId, toAccountId } from '@app/vocabulary';

export const EMAIL_MAX_LENGTH = 254;
export const PASSWORD_INPUT_MAX_LENGTH = 1024;

/**
 * Checks an e-mail address and password. Every refusal looks the same to the caller and costs the
 * same: the password is checked (against a throwaway hash when there is no usable one) before the
 * user's state is, so neither the answer nor its timing tells whether an address exists, has a
 * password, belongs to platform staff or to an inactive account.
 */
@Injectable()
export class SignInService {
  private dummyHash: Promise<string> | null = null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async verify(email: string, password: string): Promise<{ userId: string; accountId: AccountId } | null> {
    const candidate = await findSignInCandidate(this.dataSource, email);
    const passwordOk = await verifySecret(password, candidate?.password_hash ?? (await this.throwawayHash()));
    if (!candidate || !candidate.password_hash || !passwordOk || !candidate.allowed || !candidate.account_id) return null;
    return { userId: candidate.id, accountId: toAccountId(candidate.account_id) };
  }

  private throwawayHash(): Promise<string> {
    this.dummyHash ??= hashSecret(randomBytes(16).toString('hex'));
    return this.dummyHash;
  }
}
