import { familyGraph, importCircles, importGraph } from './import-graph';

describe('import circles', () => {
  const graph = importGraph();

  it('reads the files of apps/, libs/ and clients/ (TypeScript, JavaScript and Python)', () => {
    const files = [...graph.keys()];
    expect(files.filter((file) => file.endsWith('.py')).length).toBeGreaterThan(5);
    expect(files.some((file) => file.endsWith('.mjs'))).toBe(true);
    expect(graph.get('libs/domain/src/index.ts')?.length).toBeGreaterThan(5);
    expect(graph.get('clients/python/coldchain_client/client.py')).toContain('clients/python/coldchain_client/_base.py');
  });

  it('finds a circle when there is one', () => {
    const circles = importCircles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]));
    expect(circles).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('has no circle among the files of apps/, libs/ and clients/', () => {
    const circles = importCircles(graph).map((circle) => circle.join(' → '));
    if (circles.length > 0) console.error(`import circles:\n${circles.join('\n')}`);
    expect(circles).toEqual([]);
  });
});

describe('families (libs/domain/src/<family>, libs/webhooks)', () => {
  const { families, besideDoors } = familyGraph(importGraph());

  it('reads the families and the imports between them', () => {
    expect(families.size).toBeGreaterThan(15);
    expect(families.get('domain/shipments')).toEqual(expect.arrayContaining(['domain/telemetry', 'domain/devices']));
  });

  it('finds a family loop and an import beside a door when there is one', () => {
    const graph = new Map([
      ['libs/domain/src/a/a.service.ts', ['libs/domain/src/b/index.ts']],
      ['libs/domain/src/b/b.service.ts', ['libs/domain/src/a/a.rules.ts']],
    ]);
    const { families: loop, besideDoors: beside } = familyGraph(graph);
    expect(importCircles(loop)).toEqual([['domain/a', 'domain/b', 'domain/a']]);
    expect(beside).toEqual(['libs/domain/src/b/b.service.ts → libs/domain/src/a/a.rules.ts']);
  });

  it('has no loop between families', () => {
    const loops = importCircles(families).map((loop) => loop.join(' → '));
    expect(loops).toEqual([]);
  });

  it('reaches another family only through its door (index.ts)', () => {
    expect(besideDoors).toEqual([]);
  });
});
