/** Customer user roles. `COMPANY_ADMIN` exists but is never granted or changed through the API. */
export const ROLE_VALUES = ['COMPANY_ADMIN', 'MANAGER', 'OPERATOR', 'VIEWER'] as const;
export type Role = (typeof ROLE_VALUES)[number];

export const COMPANY_ADMIN: Role = 'COMPANY_ADMIN';
export const ASSIGNABLE_ROLES: readonly Role[] = ROLE_VALUES.filter((role) => role !== COMPANY_ADMIN);

export interface RoleDefinition {
  role: Role;
  display_name: string;
  description: string;
  assignable: boolean;
}

export const ROLES: readonly RoleDefinition[] = [
  {
    role: 'COMPANY_ADMIN',
    display_name: 'Company administrator',
    description: 'Manages the company account, its users and its integrations. Granted by the platform only.',
    assignable: false,
  },
  {
    role: 'MANAGER',
    display_name: 'Manager',
    description: 'Manages shipments, devices, catalogue records and alarms, and invites users.',
    assignable: true,
  },
  {
    role: 'OPERATOR',
    display_name: 'Operator',
    description: 'Runs day-to-day operations: creates and completes shipments, resolves alarms.',
    assignable: true,
  },
  { role: 'VIEWER', display_name: 'Viewer', description: 'Read-only access to shipments, devices, alarms and reports.', assignable: true },
];

export const isRole = (value: string): value is Role => (ROLE_VALUES as readonly string[]).includes(value);
