import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { stringify } from 'yaml';
import { Public } from '../auth/auth.decorators';
import { API_PREFIX } from '../common/public-api-controller';
import { OpenApiDocumentHolder } from './openapi-document';

@ApiTags('Meta')
@Public()
@Controller(`${API_PREFIX}/schema`)
export class SchemaController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get()
  @ApiOperation({ summary: 'This OpenAPI description (JSON, or YAML with ?format=yaml)' })
  @ApiQuery({ name: 'format', required: false, enum: ['json', 'yaml'] })
  @ApiProduces('application/json', 'application/yaml')
  serve(@Query('format') format: string | undefined, @Res() response: Response): void {
    const document = this.holder.document;
    if (!document) {
      response.status(503).json({ status: 'starting' });
      return;
    }
    if (format === 'yaml' || format === 'yml') {
      response.type('application/yaml; charset=utf-8').send(stringify(document, { aliasDuplicateObjects: false }));
      return;
    }
    response.type('application/json; charset=utf-8').send(JSON.stringify(document));
  }

  @Get('yaml')
  @ApiExcludeEndpoint()
  yaml(@Res() response: Response): void {
    this.serve('yaml', response);
  }
}
