import { dropDatabase } from './database';

export default async function globalTeardown(): Promise<void> {
  if (process.env.TEST_DATABASE_NAME && !process.env.KEEP_TEST_DATABASE) await dropDatabase(process.env.TEST_DATABASE_NAME);
}
