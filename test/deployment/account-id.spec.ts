import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = process.cwd();
const CONSTRUCTOR = 'libs/vocabulary/src/account-id.ts';

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) sourceFiles(path, out);
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The one parameter decorator that hands over a decided tenant: the tenant guard's `request.accountId`. */
const TENANT_DECORATORS = new Set(['CurrentAccount']);

const decoratorName = (decorator: ts.Decorator): string =>
  ts.isCallExpression(decorator.expression) ? decorator.expression.expression.getText() : decorator.expression.getText();

const namesAccountId = (type: ts.TypeNode | undefined): boolean =>
  type !== undefined && ts.isTypeReferenceNode(type) && type.typeName.getText() === 'AccountId';

/**
 * Ways to get an AccountId without `toAccountId`: a type assertion (`x as AccountId`,
 * `<AccountId>x`), and a decorated parameter typed AccountId (Nest fills it from the request:
 * a URL or body value typed as a tenant the caller is entitled to, which no check decided) —
 * except `@CurrentAccount()`, which hands over the tenant guard's `toAccountId` result.
 */
function bypasses(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node): string => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && namesAccountId(node.type)) found.push(`${at(node)}: ${node.getText()}`);
    const decorators = ts.isParameter(node) ? (ts.getDecorators(node) ?? []) : [];
    if (ts.isParameter(node) && namesAccountId(node.type) && decorators.some((decorator) => !TENANT_DECORATORS.has(decoratorName(decorator)))) found.push(`${at(node)}: request parameter typed AccountId`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('AccountId', () => {
  it('is produced only by toAccountId: no cast and no request parameter typed AccountId', () => {
    const problems = ['apps', 'libs', 'test']
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => file !== CONSTRUCTOR && file !== 'test/deployment/account-id.spec.ts')
      .flatMap((file) => bypasses(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(problems).toEqual([]);
  });

  it('would see a bypass', () => {
    const text = [
      "import type { AccountId } from '@app/vocabulary';",
      'class C { get(@Param(\'id\') id: AccountId, other: AccountId, @CurrentAccount() tenant: AccountId) { return [id, other, tenant]; } }',
      "const a = 'x' as AccountId;",
      "const b = <AccountId>'y';",
    ].join('\n');
    expect(bypasses('sample.ts', text)).toEqual(['sample.ts:2: request parameter typed AccountId', "sample.ts:3: 'x' as AccountId", "sample.ts:4: <AccountId>'y'"]);
  });
});
