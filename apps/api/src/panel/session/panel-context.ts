import type { AccountId } from '@app/vocabulary';
import type { Request } from 'express';
import type { Role } from '@app/vocabulary';

/** Who is signed in, for which company; attached to the request by the panel session guard. */
export interface PanelContext {
  sessionId: string;
  /** Synchronizer token every form of this session carries. */
  csrfToken: string;
  user: { id: string; email: string; fullName: string; role: Role };
  account: { id: AccountId; name: string };
  /** Disabled webhook endpoints of the company: the warning banner shows while this is above 0. */
  disabledEndpoints: number;
}

export type PanelRequest = Request & { panel?: PanelContext };

/**
 * Who may use the panel at all: an active customer user (never platform staff or a superuser) of
 * an active customer account. `u` is users, `a` is accounts.
 */
export const PANEL_USER_ALLOWED = `(u.is_active AND NOT u.is_platform_staff AND NOT u.is_superuser AND u.role IS NOT NULL
  AND u.account_id IS NOT NULL AND a.status = 'active' AND a.kind = 'customer')`;
