import { applyDecorators, Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiTenantHeader } from '../auth/auth.decorators';

export const API_PREFIX = 'api/public/v1';

/**
 * A controller of the public API v1: mounted under the version prefix, tagged in the OpenAPI
 * description, and documented with the account-selection header.
 */
export function PublicApiController(path: string, tag: string, options: { tenant?: boolean } = {}): ClassDecorator {
  const decorators: ClassDecorator[] = [Controller(`${API_PREFIX}/${path}`), ApiTags(tag)];
  if (options.tenant !== false) decorators.push(ApiTenantHeader());
  return applyDecorators(...decorators);
}
