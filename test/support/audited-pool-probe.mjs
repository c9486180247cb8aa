/**
 * Run by test/e2e/audit-trail.e2e-spec.ts in a process of its own, against the built pool: pg
 * reports "already executing a query" through Node's process warnings, once per process, on the
 * real `process` (jest's sandbox never sees them). Prints the warnings and the audit context each
 * statement ran with, as JSON.
 */
/* global process, setTimeout */
import audit from '../../dist/libs/database/src/audit/index.js';

const { AuditedPool, runWithAuditContext } = audit;

async function main() {
  const warnings = [];
  process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));
  // One connection, so every checkout after the first reuses it with a new context.
  const pool = new AuditedPool({ connectionString: process.argv[2], max: 1 });
  const setting = `SELECT current_setting('audit.context', true) AS setting`;
  const actor = (id) => ({ actorType: 'cli', actorId: id, action: 'probe' });
  const seen = [];
  seen.push((await runWithAuditContext(actor('first'), () => pool.query(setting))).rows[0].setting);
  const client = await runWithAuditContext(actor('second'), () => pool.connect());
  try {
    seen.push((await client.query(setting)).rows[0].setting);
  } finally {
    client.release();
  }
  seen.push(
    await runWithAuditContext(actor('third'), () =>
      new Promise((resolve, reject) =>
        pool.connect((error, borrowed, release) => {
          if (error) return reject(error);
          borrowed.query(setting).then((result) => (release(), resolve(result.rows[0].setting)), (failure) => (release(failure), reject(failure)));
        }),
      ),
    ),
  );
  seen.push((await pool.query(setting)).rows[0].setting);
  await pool.end();
  await new Promise((resolve) => setTimeout(resolve, 100)); // warnings are emitted after the statements
  process.stdout.write(JSON.stringify({ warnings, actors: seen.map((value) => (value ? JSON.parse(value).actor_id : null)) }));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack));
  process.exit(1);
});
