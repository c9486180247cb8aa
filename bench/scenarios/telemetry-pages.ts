import { getJson, getText } from '../harness/load';
import type { AppUnderTest, BenchContext } from './scenario';

export interface Page {
  data: unknown[];
  links: { next: string | null };
}

export function telemetryUrl(ctx: BenchContext, app: AppUnderTest, extra: Record<string, string>): string {
  const params = new URLSearchParams({ from: ctx.telemetryWindow.from.toISOString(), to: ctx.telemetryWindow.to.toISOString(), ...extra });
  return `${app.base}/devices/${ctx.devices[0].deviceId}/telemetry/?${params.toString()}`;
}

/** Follows links.next from the first page to the last, one request at a time, as a client does. */
export async function readAllPages(first: string, token: string): Promise<{ requests: number; items: number }> {
  let url: string | null = first;
  let requests = 0;
  let items = 0;
  while (url) {
    const page: Page = await getJson<Page>(url, token);
    requests++;
    items += page.data.length;
    url = page.links.next;
  }
  return { requests, items };
}

/** The body of every page from the first to the last, as the app sent it (the transfer floor's input). */
export async function pageBodies(first: string, token: string): Promise<string[]> {
  const bodies: string[] = [];
  let url: string | null = first;
  while (url) {
    const text = await getText(url, token);
    bodies.push(text);
    url = (JSON.parse(text) as Page).links.next;
  }
  return bodies;
}
