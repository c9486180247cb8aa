/** Every scope of spec §5.6 except `public`, which marks the token exchange itself. */
export const ALL_SCOPES = [
  'accounts:read',
  'accounts:write',
  'locations:read',
  'locations:write',
  'carriers:read',
  'carriers:write',
  'receivers:read',
  'receivers:write',
  'alert-presets:read',
  'alert-presets:write',
  'shipment-templates:read',
  'shipment-templates:write',
  'devices:read',
  'devices:label:write',
  'devices:settings:write',
  'alarms:read',
  'alarms:write',
  'maintenance:read',
  'telemetry:read',
  'shipments:read',
  'shipments:write',
  'shipments:complete',
  'shipments:share',
  'shipments:tracking:read',
  'reports:read',
  'users:read',
  'users:write',
  'users:invite',
  'audit:read',
] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export const READ_SCOPES: Scope[] = ALL_SCOPES.filter((s) => s.endsWith(':read'));

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
