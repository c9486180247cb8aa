import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * DejaVu Sans (package `dejavu-fonts-ttf`, free licence), embedded and subset by PDFKit: the
 * standard Helvetica fonts cover WinAnsi only, so Turkish names (İzmir, Ayşe Yılmaz) printed
 * folded. DejaVu Sans covers Latin (with Extended-A/B), Greek and Cyrillic.
 */
export const FONT_REGULAR = 'Report';
export const FONT_BOLD = 'Report-Bold';

const FILES = { [FONT_REGULAR]: 'DejaVuSans.ttf', [FONT_BOLD]: 'DejaVuSans-Bold.ttf' } as const;

// The build is CommonJS (`require` exists); the tests load the sources as ES modules and run
// from the repository root.
const resolver: NodeJS.Require = typeof require === 'function' ? require : createRequire(join(process.cwd(), 'package.json'));

let loaded: Map<string, Buffer> | null = null;

function fontData(): Map<string, Buffer> {
  loaded ??= new Map(Object.entries(FILES).map(([name, file]) => [name, readFileSync(resolver.resolve(`dejavu-fonts-ttf/ttf/${file}`))]));
  return loaded;
}

export function registerReportFonts(doc: PDFKit.PDFDocument): void {
  for (const [name, data] of fontData()) doc.registerFont(name, data);
}
