import { ApiProperty } from '@nestjs/swagger';
import type { AuditEventRow } from '@app/database';

export const AUDIT_ACTOR_TYPES = ['credential', 'panel_user', 'cli', 'system'] as const;
export const AUDIT_OPERATIONS = ['create', 'update', 'delete'] as const;

export class AuditActorDto {
  @ApiProperty({
    enum: AUDIT_ACTOR_TYPES,
    description: '`credential`: an API client; `panel_user`: a person in the web panel; `cli`: a platform operator; `system`: the service itself (ingestion, automation, the webhook dispatcher).',
  })
  type: (typeof AUDIT_ACTOR_TYPES)[number];
  @ApiProperty({ type: String, nullable: true, description: 'The credential id, the panel user id, the operator name, or the service process.' })
  id: string | null;
}

/** One field's change. Values are JSON text, so any field type reads the same way. */
export class AuditFieldChangeDto {
  @ApiProperty({ description: 'The field (column) that changed.', example: 'thresholds' })
  field: string;
  @ApiProperty({ description: '`true` for secrets, tokens and hashes: only that they changed is recorded, never a value (`old` and `new` are then null).' })
  secret: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'The value before, as JSON text (`"null"` on a create).', example: '{"temperature_max": 8}' })
  old: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The value after, as JSON text (`"null"` on a delete).', example: '{"temperature_max": 6}' })
  new: string | null;
}

/** One record of the audit trail: who changed what, when, from where and why. */
export class AuditEventDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time', description: 'When the change was made (server time).' }) occurred_at: string;
  @ApiProperty({ type: AuditActorDto }) actor: AuditActorDto;
  @ApiProperty({ type: String, nullable: true, description: 'The client address the change came from (null for the service itself).' }) client_address: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The request id (`X-Request-ID`) of the change.' }) request_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reason the caller gave (`X-Change-Reason`, the panel form), if any.' }) reason: string | null;
  @ApiProperty({ description: 'What was asked: the operation (`PATCH /devices/{device_id}/settings/`), the CLI command, or `<resource>.<operation>` for the service.' })
  action: string;
  @ApiProperty({ enum: AUDIT_OPERATIONS }) operation: (typeof AUDIT_OPERATIONS)[number];
  @ApiProperty({ example: 'device' }) resource_type: string;
  @ApiProperty() resource_id: string;
  @ApiProperty({ type: [AuditFieldChangeDto], description: 'The fields that changed, by name.' }) changes: AuditFieldChangeDto[];

  static from(row: AuditEventRow): AuditEventDto {
    return {
      id: row.id,
      occurred_at: row.occurred_at.toISOString(),
      actor: { type: row.actor_type, id: row.actor_id },
      client_address: row.client_address,
      request_id: row.request_id,
      reason: row.reason,
      action: row.action,
      operation: row.operation,
      resource_type: row.resource_type,
      resource_id: row.resource_id,
      changes: Object.keys(row.changes)
        .sort()
        .map((field) => {
          const change = row.changes[field];
          return 'changed' in change
            ? { field, secret: true, old: null, new: null }
            : { field, secret: false, old: JSON.stringify(change.old), new: JSON.stringify(change.new) };
        }),
    };
  }
}
