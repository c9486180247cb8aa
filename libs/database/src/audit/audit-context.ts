import { processWide } from '../process-wide-storage';

/** Who makes a change, from where and why: what every audit record carries beside the change itself. */
export interface AuditContext {
  actorType: 'credential' | 'panel_user' | 'cli';
  /** The API credential id, the panel user id, or the CLI operator's name. */
  actorId: string;
  clientAddress?: string;
  requestId?: string;
  /** Optional, from the caller (`X-Change-Reason`, the panel form's reason field, `--reason`). */
  reason?: string;
  /** What was asked: the route (`PATCH /devices/{device_id}/settings/`) or the CLI command. */
  action?: string;
}

/**
 * A request's context is read when the request first touches the database, not when it starts:
 * the caller is only known once the guards have run. Returns undefined while nobody is known
 * (a sign-in, a public route): the record then says `system`.
 */
export type AuditContextSource = () => AuditContext | undefined;

// One instance per process, not per module load: every enabled AsyncLocalStorage is copied into
// each new async resource, so instances made by repeated loads (jest loads the module once per
// suite in one process) would add cost to every callback and keep old apps' contexts alive.
const storage = processWide<AuditContextSource>('coldchain.audit-context');

/** Runs `work` (and everything it awaits) with this source of audit context. */
export function runWithAuditContext<T>(source: AuditContextSource | AuditContext, work: () => T): T {
  return storage.run(typeof source === 'function' ? source : () => source, work);
}

export const MAX_REASON_LENGTH = 500;

/** A caller-given reason as it is stored: control characters become spaces, at most 500 characters, empty is none. */
export function normaliseReason(reason: unknown): string | undefined {
  if (typeof reason !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const text = reason.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, MAX_REASON_LENGTH);
  return text === '' ? undefined : text;
}

/** The value of the `audit.context` session setting for the current async context ('' when none). */
export function currentAuditSetting(): string {
  const context = storage.getStore()?.();
  if (!context) return '';
  return JSON.stringify({
    actor_type: context.actorType,
    actor_id: context.actorId,
    client_address: context.clientAddress ?? null,
    request_id: context.requestId ?? null,
    reason: normaliseReason(context.reason) ?? null,
    action: context.action ?? null,
  });
}
