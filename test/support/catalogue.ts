import { randomUUID } from 'node:crypto';
import { API, type TestApi } from './api';
import type { Tenant } from './fixtures';

export type Json = Record<string, unknown>;

export const CIRCLE = { type: 'circle', center: { latitude: 38.4382, longitude: 27.1442 }, radius_m: 750 };
export const SQUARE = {
  type: 'polygon',
  polygon: { type: 'Polygon', coordinates: [[[27, 38], [27.01, 38], [27.01, 38.01], [27, 38.01], [27, 38]]] },
};

export const newKey = (): string => `test-${randomUUID()}`;

/** POSTs a record with a fresh Idempotency-Key and returns the created representation. */
export async function createRecord(api: TestApi, tenant: Tenant, collection: string, body: Json): Promise<Json> {
  const res = await api.http.post(`${API}/${collection}/`).set(tenant.auth).set('Idempotency-Key', newKey()).send(body);
  if (res.status !== 201) throw new Error(`POST /${collection}/ answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

export interface CatalogueRefs {
  origin: string;
  destination: string;
  hub: string;
  seaCarrier: string;
  roadCarrier: string;
  receiver: string;
  preset: string;
}

/** One record of every family a shipment template can point at. */
export async function createTemplateRefs(api: TestApi, tenant: Tenant): Promise<CatalogueRefs> {
  const location = (name: string) => createRecord(api, tenant, 'locations', { name, kind: 'warehouse', geofence: CIRCLE });
  const [origin, destination, hub] = await Promise.all([location('Origin'), location('Destination'), location('Hub')]);
  const seaCarrier = await createRecord(api, tenant, 'carriers', { name: 'Sea Co', mode: 'sea' });
  const roadCarrier = await createRecord(api, tenant, 'carriers', { name: 'Road Co', mode: 'road' });
  const receiver = await createRecord(api, tenant, 'receivers', { name: 'Hospital' });
  const preset = await createRecord(api, tenant, 'alert-presets', { name: 'Vaccines', temperature_min: 2, temperature_max: 8 });
  return {
    origin: origin.id as string,
    destination: destination.id as string,
    hub: hub.id as string,
    seaCarrier: seaCarrier.id as string,
    roadCarrier: roadCarrier.id as string,
    receiver: receiver.id as string,
    preset: preset.id as string,
  };
}

/** Path and query of an absolute `links.next` URL, to request it from the in-process app. */
export const localPath = (absolute: string): string => {
  const url = new URL(absolute);
  return `${url.pathname}${url.search}`;
};
