import { ConflictError } from '../errors';

export const roleNotAssignable = (): ConflictError =>
  new ConflictError('role_not_assignable', 'COMPANY_ADMIN cannot be granted through the API; choose MANAGER, OPERATOR or VIEWER.', 'Role not assignable');

export const companyAdminProtected = (action: string): ConflictError =>
  new ConflictError('company_admin_protected', `A company administrator cannot be ${action} through the API.`, 'Company administrator protected');
