import { PlatformCore1763769600000 } from './1763769600000-PlatformCore';

/** In order. A new migration is appended here; never edit one that has shipped. */
export const MIGRATIONS = [PlatformCore1763769600000];
