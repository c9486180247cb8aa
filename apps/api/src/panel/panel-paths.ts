/** The panel lives outside the public API path; its cookie is scoped to this path. */
export const PANEL_PATH = 'panel';
export const PANEL_ROOT = `/${PANEL_PATH}/`;

/** Absolute path of a panel page: `panelPath('webhooks', id)` → `/panel/webhooks/<id>/`. */
export const panelPath = (...parts: string[]): string =>
  parts.length === 0 ? PANEL_ROOT : `${PANEL_ROOT}${parts.map((part) => encodeURIComponent(part)).join('/')}/`;

export const SIGN_IN_PATH = panelPath('sign-in');

/** Only panel pages may be a post-sign-in destination (no open redirect). */
export function safeNextPath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 200) return null;
  return /^\/panel(?:\/[A-Za-z0-9_-]+)*\/?$/.test(value) && !value.startsWith(SIGN_IN_PATH.slice(0, -1)) ? value : null;
}
