import { createHmac } from 'node:crypto';

/** The demo fixture's secrets are derived from the deployment key, never stored in clear. */
export function demoSecret(secretsKey: Buffer, clientId: string): string {
  return `ccs_${createHmac('sha256', secretsKey).update(`demo:${clientId}`).digest('base64url')}`;
}
