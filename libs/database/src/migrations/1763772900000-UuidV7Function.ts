import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `uuid_v7()`: a time-ordered UUID (RFC 9562 version 7) made in the database, for rows a statement
 * creates in numbers it decides itself (the dispatcher's fan-out joins events with the endpoints
 * subscribed to them). The service's other ids are made in Node (`newId`, also version 7), so rows
 * keep their ids growing with time whichever side made them, and the primary key's B-tree keeps
 * appending at its right edge. PostgreSQL 15 has no built-in (`uuidv7()` arrives in 18).
 *
 * The first 48 bits are the Unix time in milliseconds (clock_timestamp: the moment each id is
 * made); the version nibble is set from 4 to 7 (bits 52 and 53 of gen_random_uuid's bytes); the
 * rest, variant included, is gen_random_uuid's randomness (74 bits).
 */
export class UuidV7Function1763772900000 implements MigrationInterface {
  name = 'UuidV7Function1763772900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION uuid_v7() RETURNS uuid
      LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
        SELECT encode(
                 set_bit(set_bit(
                   overlay(uuid_send(gen_random_uuid())
                           PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                           FROM 1 FOR 6),
                   52, 1), 53, 1),
                 'hex')::uuid
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION uuid_v7()');
  }
}
