import { PlatformCore1763769600000 } from './1763769600000-PlatformCore';
import { Outbox1763769600001 } from './1763769600001-Outbox';
import { Webhooks1763769900000 } from './1763769900000-Webhooks';

/** In order. A new migration is appended here; never edit one that has shipped. */
export const MIGRATIONS = [PlatformCore1763769600000, Outbox1763769600001, Webhooks1763769900000];
