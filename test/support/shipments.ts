import type { DataSource } from 'typeorm';
import { API, type TestApi } from './api';
import { createRecord, createTemplateRefs, newKey, type CatalogueRefs, type Json } from './catalogue';
import { createTenant, dataSourceOf, type Tenant } from './fixtures';
import { registerDevices } from './devices';

export interface ShipmentWorld {
  tenant: Tenant;
  refs: CatalogueRefs;
  /** Approved devices of the tenant. */
  devices: string[];
  db: DataSource;
}

/** A tenant with one record of every catalogue family and some approved devices. */
export async function shipmentWorld(api: TestApi, deviceCount = 6, scopes?: string[], name = 'Shipper'): Promise<ShipmentWorld> {
  const db = dataSourceOf(api.app);
  const tenant = await createTenant(api.app, scopes, name);
  const refs = await createTemplateRefs(api, tenant);
  const devices = (await registerDevices(db, tenant.accountId, deviceCount)).map((d) => d.id);
  return { tenant, refs, devices, db };
}

export const shipmentBody = (refs: CatalogueRefs, deviceIds: string[], extra: Json = {}): Json => ({
  reference: 'REF-1',
  name: 'Test shipment',
  origin_location_id: refs.origin,
  destination_location_id: refs.destination,
  device_ids: deviceIds,
  ...extra,
});

/** POST /shipments/create/ with a fresh Idempotency-Key; fails the test unless 201. */
export async function createShipment(api: TestApi, tenant: Tenant, body: Json): Promise<Json & { id: number }> {
  const res = await api.http.post(`${API}/shipments/create/`).set(tenant.auth).set('Idempotency-Key', newKey()).send(body);
  if (res.status !== 201) throw new Error(`POST /shipments/create/ answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Json & { id: number };
}

export { createRecord, newKey };
