import { readFileSync, writeFileSync } from 'node:fs';
import { SCALE_FACTOR_TARGET } from './plan';
import { scaleChart, scaleMarkdown, type SizeResult } from './scale-report';

/**
 * Re-renders the table and the chart of a finished `--scale` run from its bench/results/scale-sizes.json:
 * `node dist/bench/scale/render.js <scale-sizes.json> <out.svg> [<out.md> [<cpu-out.svg>]]` (e.g. for docs/benchmarks/).
 */
function main(argv: readonly string[]): void {
  const [input, svgOut, mdOut, cpuSvgOut] = argv;
  if (!input || !svgOut) throw new Error('usage: node dist/bench/scale/render.js <scale-sizes.json> <out.svg> [<out.md> [<cpu-out.svg>]]');
  const run = JSON.parse(readFileSync(input, 'utf8')) as { machine: { cpu_model: string; cores: number; postgresql_version: string; date: string }; sizes: SizeResult[] };
  const m = run.machine;
  writeFileSync(svgOut, scaleChart(run.sizes, SCALE_FACTOR_TARGET, `${m.cpu_model}, ${m.cores} cores; PostgreSQL ${m.postgresql_version}; ${m.date}`));
  if (cpuSvgOut) writeFileSync(cpuSvgOut, scaleChart(run.sizes, SCALE_FACTOR_TARGET, `${m.cpu_model}, ${m.cores} cores; PostgreSQL ${m.postgresql_version}; ${m.date}`, 'cpu'));
  if (mdOut) writeFileSync(mdOut, `${scaleMarkdown(run.sizes, SCALE_FACTOR_TARGET)}\n`);
}

main(process.argv.slice(2));
