import type { Response } from 'express';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Every value interpolated into a page goes through this. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Trusted markup, built only by the view functions from escaped values. */
export class Html {
  constructor(readonly value: string) {}
}

/** Tagged template: interpolated strings are escaped, nested Html is kept, arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Array<string | number | Html | Html[] | null | undefined>): Html {
  let out = strings[0];
  values.forEach((value, index) => {
    const parts = Array.isArray(value) ? value : [value];
    out += parts.map((part) => (part instanceof Html ? part.value : part === null || part === undefined ? '' : escapeHtml(String(part)))).join('');
    out += strings[index + 1];
  });
  return new Html(out);
}

const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; background: #f4f6f8; color: #1b1f24; }
  main { max-width: 28rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { display: block; width: 100%; box-sizing: border-box; font-size: 1rem; padding: .5rem; margin-top: .25rem; border: 1px solid #6b7280; border-radius: 4px; }
  input[aria-invalid="true"] { border-color: #b42318; }
  input:focus, button:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  .hint { color: #4b5563; font-size: .9rem; margin: .25rem 0 0; }
  .field-error { color: #b42318; font-size: .9rem; margin: .25rem 0 0; }
  .errors { border: 2px solid #b42318; border-radius: 4px; padding: .5rem 1rem; color: #7a1a12; }
  button { margin-top: 1.5rem; font-size: 1rem; padding: .6rem 1.2rem; background: #1d4ed8; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }`;

export interface PageOptions {
  /** Extra CSS for this page, appended to the common style. */
  style?: string;
  /** CSP form-action: 'self' for pages with a form, 'none' otherwise. */
  formAction?: "'self'" | "'none'";
}

/**
 * Sends a complete page. No scripts, no cookies; the token in the URL must not leak through
 * Referer, caches or frames.
 */
export function sendPage(response: Response, status: number, title: string, body: Html, options: PageOptions = {}): void {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Cold Chain Telemetry</title>
<style>${new Html(STYLE + (options.style ?? ''))}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  response
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${options.formAction ?? "'self'"}; frame-ancestors 'none'; base-uri 'none'`,
    })
    .send(page.value);
}
