import { ApiProperty, ApiPropertyOptional, getSchemaPath, type ApiResponseOptions } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ example: 'name' }) field: string;
  @ApiProperty({ example: 'isNotEmpty' }) code: string;
  @ApiProperty({ example: 'name should not be empty' }) message: string;
}

/** RFC 9457 problem details, as every error response of the API carries. */
export class ProblemDetailsDto {
  @ApiProperty({ example: 'urn:coldchain:problem:not_found', description: 'URI identifying the problem type.' })
  type: string;
  @ApiProperty({ example: 'Not found' }) title: string;
  @ApiProperty({ example: 404 }) status: number;
  @ApiPropertyOptional({ example: 'Resource does not exist or is not visible to this account.' }) detail?: string;
  @ApiProperty({ example: 'not_found', description: 'Stable machine-readable error code (see the API description).' })
  code: string;
  @ApiPropertyOptional({ example: '/api/public/v1/devices/0190.../' }) instance?: string;
  @ApiPropertyOptional({ type: [FieldErrorDto] }) errors?: FieldErrorDto[];
  @ApiPropertyOptional({ description: 'Present on 500 responses; quote it to support.' }) error_id?: string;
}

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export function problemResponse(status: number, description: string): ApiResponseOptions {
  return {
    status,
    description,
    content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: getSchemaPath(ProblemDetailsDto) } } },
  };
}
