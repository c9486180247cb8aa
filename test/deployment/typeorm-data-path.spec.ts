import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, sourceFiles } from '../support/query-files';

/**
 * One data path: every statement the service runs is a `defineQueries` statement (so it is in
 * queries/*.sql and its tenant parameter is typed). TypeORM stays for the entities, the
 * migrations and the data source; its repository and manager query API is used nowhere else.
 */
const TYPEORM_HOME = [/^libs\/database\/src\/migrations\//, /^libs\/database\/src\/entities\//, /^libs\/database\/src\/data-source\.ts$/];

const QUERY_API = [
  /\.getRepository\s*[<(]/,
  /\.createQueryBuilder\s*[<(]/,
  /\b(?:manager|entityManager|em|dataSource|db|repository|repo)\.(?:find\w*|save|insert|update|delete|remove|count\w*|exists\w*|upsert|increment|decrement|softDelete|restore|preload|sum|average|minimum|maximum)\s*[<(]/,
  /import\s*\{[^}]*\b(?:In|IsNull|Not|Like|ILike|Between|MoreThan\w*|LessThan\w*|Any|Raw|FindOptionsWhere)\b[^}]*\}\s*from\s*'typeorm'/,
];

export function usesTypeOrmQueryApi(text: string): boolean {
  return QUERY_API.some((pattern) => pattern.test(text));
}

describe('one data path', () => {
  it('recognises TypeORM query calls', () => {
    for (const text of [
      'db.getRepository(User).save(user)',
      "manager.findOne(Account, { where: { id } })",
      "dataSource.createQueryBuilder('a')",
      "import { In } from 'typeorm';",
      'repository.count()',
    ]) {
      expect({ text, found: usesTypeOrmQueryApi(text) }).toEqual({ text, found: true });
    }
    for (const text of ['db.transaction(async (manager) => run(manager))', "import type { DataSource } from 'typeorm';", 'sql.count(db, Q.purge)', 'this.held.delete(id)']) {
      expect({ text, found: usesTypeOrmQueryApi(text) }).toEqual({ text, found: false });
    }
  });

  it('uses TypeORM repositories and managers only for entities, migrations and the data source', () => {
    const users = [...sourceFiles('apps'), ...sourceFiles('libs')]
      .filter((file) => !TYPEORM_HOME.some((pattern) => pattern.test(file)))
      .filter((file) => usesTypeOrmQueryApi(readFileSync(join(ROOT, file), 'utf8')));
    expect(users).toEqual([]);
  });
});
