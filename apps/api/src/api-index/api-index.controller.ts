import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { Public } from '../auth/auth.decorators';
import { API_PREFIX } from '../common/public-api-controller';
import { APP_CONFIG } from '../config/config.module';

/** Collections of API v1, in the order of the specification. */
export const COLLECTIONS = [
  'accounts', 'locations', 'carriers', 'receivers', 'alert-presets', 'shipment-templates', 'devices',
  'shipments', 'alarms', 'reports', 'users', 'roles', 'user-invitations',
];

@ApiTags('Meta')
@Public()
@Controller(API_PREFIX)
export class ApiIndexController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @ApiOperation({ summary: 'API index: links to every collection, the schema and the documentation' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['version', 'links', 'webhooks'],
      properties: {
        version: { type: 'string', example: 'v1' },
        links: { type: 'object', additionalProperties: { type: 'string', format: 'uri' } },
        webhooks: { type: 'string' },
      },
    },
  })
  index(): { version: string; links: Record<string, string>; webhooks: string } {
    const base = `${this.config.publicBaseUrl}/${API_PREFIX}`;
    const links: Record<string, string> = {
      self: `${base}/`,
      token: `${base}/oauth/token/`,
      schema: `${base}/schema/`,
      schema_yaml: `${base}/schema/?format=yaml`,
      docs: `${base}/docs/`,
    };
    for (const collection of COLLECTIONS) links[collection.replace(/-/g, '_')] = `${base}/${collection}/`;
    return {
      version: 'v1',
      links,
      webhooks:
        'Webhooks are not part of API v1: endpoints are registered in the web panel (Settings → Webhooks). Poll the API for changes.',
    };
  }
}
