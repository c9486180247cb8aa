import { PlatformCore1763769600000 } from './1763769600000-PlatformCore';
import { Outbox1763769600001 } from './1763769600001-Outbox';
import { Catalogue1763769700000 } from './1763769700000-Catalogue';
import { Users1763769700001 } from './1763769700001-Users';

/** In order. A new migration is appended here; never edit one that has shipped. */
export const MIGRATIONS = [PlatformCore1763769600000, Outbox1763769600001, Catalogue1763769700000, Users1763769700001];
