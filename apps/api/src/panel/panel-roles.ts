import type { Role } from '@app/vocabulary';

/** API credentials grant machine access to the whole company: company administrators only. */
export const CREDENTIAL_ROLES: Role[] = ['COMPANY_ADMIN'];

/**
 * Webhooks send the company's events to an outside address: company administrators and managers
 * (who already manage shipments, devices and alarms). Operators and viewers are refused.
 */
export const WEBHOOK_ROLES: Role[] = ['COMPANY_ADMIN', 'MANAGER'];

export const mayManageCredentials = (role: Role): boolean => CREDENTIAL_ROLES.includes(role);
export const mayManageWebhooks = (role: Role): boolean => WEBHOOK_ROLES.includes(role);

/** The audit trail names people, their addresses and every change of the company: company administrators only. */
export const AUDIT_LOG_ROLES: Role[] = ['COMPANY_ADMIN'];

export const mayReadAuditLog = (role: Role): boolean => AUDIT_LOG_ROLES.includes(role);
