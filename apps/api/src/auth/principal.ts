import type { Request } from 'express';
import type { AccountId } from '@app/vocabulary';

/** Who is calling: the credential behind the token, as it is in the database right now. */
export interface Principal {
  credentialId: string;
  clientId: string;
  /** Token scopes still granted to the credential (a scope removed since issuance no longer counts). */
  scopes: ReadonlySet<string>;
  /** Active customer accounts on the credential's allow-list. */
  accountIds: readonly string[];
}

export interface AuthenticatedRequest extends Request {
  principal?: Principal;
  accountId?: AccountId;
}
