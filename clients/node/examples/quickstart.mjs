// Quick start of @coldchain/client. Run from the repository root (builds the package first):
//
//   COLDCHAIN_BASE_URL=http://localhost:3000 COLDCHAIN_CLIENT_ID=... COLDCHAIN_CLIENT_SECRET=... \
//     npm run --silent example:node
//
// Prints one JSON line and exits non-zero on any failure. Safe to run again and again: the
// shipment it creates is completed, which frees its devices.
import { Buffer } from 'node:buffer';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, ColdchainClient, signWebhook, verifyWebhook } from '@coldchain/client';

const HOUR = 3_600_000;

/** The quick start's origin and destination: found by name, created on the first run. */
async function quickStartLocations(client) {
  const names = ['Quick start origin', 'Quick start destination'];
  const existing = new Map();
  for await (const location of client.locations.list({ limit: 200 })) if (names.includes(location.name)) existing.set(location.name, location);
  const found = [];
  for (const [index, name] of names.entries()) {
    found.push(
      existing.get(name) ??
        (await client.locations.create({
          name,
          kind: 'warehouse',
          geofence: { type: 'circle', center: { latitude: 41.0 + index, longitude: 29.0 + index }, radius_m: 500 },
        })),
    );
  }
  return found;
}

async function main() {
  // COLDCHAIN_BASE_URL, COLDCHAIN_CLIENT_ID, COLDCHAIN_CLIENT_SECRET (and COLDCHAIN_ACCOUNT_ID for multi-account credentials)
  const client = ColdchainClient.fromEnv();

  // 1. Every device, page after page (the paginator follows links.next).
  const devices = [];
  for await (const device of client.devices.list({ limit: 50 })) devices.push(device);
  if (devices.length === 0) throw new Error('the account has no devices');

  // 2. One device's last 24 hours of telemetry.
  const to = new Date();
  const from = new Date(to.getTime() - 24 * HOUR);
  let telemetryPoints = 0;
  for await (const point of client.telemetry.list(devices[0].id, { from, to, limit: 1000 })) if (point) telemetryPoints += 1;

  // 3. A shipment with two devices that are in no active shipment; share it, complete it.
  const busy = new Set();
  for await (const active of client.shipments.list({ status: 'active' })) for (const id of active.device_ids) busy.add(id);
  const free = devices.filter((device) => !busy.has(device.id)).map((device) => device.id);
  if (free.length < 2) throw new Error(`two free devices are needed, the account has ${free.length}`);
  const [origin, destination] = await quickStartLocations(client);
  const shipment = await client.shipments.create({
    reference: `QS-${Date.now()}`,
    name: 'Quick start shipment',
    origin_location_id: origin.id,
    destination_location_id: destination.id,
    device_ids: free.slice(0, 2),
  }); // an Idempotency-Key is generated (and reused if the client retries)
  const share = await client.shipments.share(shipment.id, { expires_in_hours: 24, max_views: 10 });
  await client.shipments.complete(shipment.id);

  // 4. The reports generated on completion: list them, stream one to a file.
  let reports = [];
  for (let waited = 0; reports.length === 0 && waited <= 60_000; waited += 500) {
    if (waited > 0) await sleep(500);
    reports = await client.reports.list({ shipment_id: shipment.id }).toArray();
  }
  if (reports.length === 0) throw new Error(`no report of shipment ${shipment.id} appeared within 60 s`);
  const dir = await mkdtemp(join(tmpdir(), 'coldchain-quickstart-'));
  let downloaded;
  try {
    downloaded = await client.reports.downloadTo(reports[0].id, join(dir, reports[0].name));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // 5. A webhook as the service sends it, verified with its signing secret.
  const secret = 'whsec_quickstart_example_secret';
  const completed = await client.shipments.get(shipment.id);
  const body = JSON.stringify({ id: '5f0c2a52-3b8e-4d43-9a7e-0b6f3c1d2e4f', type: 'shipment.completed', created_at: new Date().toISOString(), data: completed });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const event = verifyWebhook(
    Buffer.from(body),
    { 'x-service-timestamp': timestamp, 'x-service-signature': signWebhook(secret, timestamp, body), 'x-service-event-id': '5f0c2a52-3b8e-4d43-9a7e-0b6f3c1d2e4f' },
    [secret],
  );

  process.stdout.write(
    `${JSON.stringify({
      devices: devices.length,
      telemetry_points: telemetryPoints,
      shipment_id: shipment.id,
      share_url: share.url,
      reports: reports.length,
      downloaded_bytes: downloaded.bytes,
      webhook_verified: event.type === 'shipment.completed' && event.data.id === shipment.id,
    })}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`quickstart failed: ${error instanceof ApiError ? `${error.message}` : error?.stack ?? error}\n`);
  process.exitCode = 1;
});
