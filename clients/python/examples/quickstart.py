#!/usr/bin/env python3
"""Quick start of the Cold Chain Telemetry Python client.

    COLDCHAIN_BASE_URL=http://localhost:3000/api/public/v1 \\
    COLDCHAIN_CLIENT_ID=... COLDCHAIN_CLIENT_SECRET=... \\
    python3 clients/python/examples/quickstart.py

(``npm run --silent example:python`` from the repository root does the same.) Optional:
COLDCHAIN_ACCOUNT_ID for a credential assigned to several accounts.

It lists every device (auto-paging), reads one device's last 24 hours of telemetry, creates a
shipment with two free devices, shares and completes it, lists the shipment's reports and
downloads one, and verifies a sample webhook. It prints one JSON line and exits non-zero on any
failure; it can run any number of times against the same service.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone

# Run from a checkout without installing the package.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from coldchain_client import ColdchainClient, ColdchainError, Webhook  # noqa: E402

CIRCLE = {"type": "circle", "center": {"latitude": 38.4382, "longitude": 27.1442}, "radius_m": 750}


def location_named(client: ColdchainClient, name: str, kind: str) -> str:
    """A location of the account with this name, created the first time."""
    for location in client.locations.iter_all():
        if location["name"] == name:
            return location["id"]
    # A stable Idempotency-Key: two runs racing to create it make one record.
    created = client.locations.create({"name": name, "kind": kind, "geofence": CIRCLE}, idempotency_key=f"quickstart-location-{kind}")
    return created["id"]


def main() -> int:
    try:
        base_url = os.environ["COLDCHAIN_BASE_URL"]
        client_id = os.environ["COLDCHAIN_CLIENT_ID"]
        client_secret = os.environ["COLDCHAIN_CLIENT_SECRET"]
    except KeyError as missing:
        print(f"quickstart: set {missing.args[0]} (and COLDCHAIN_BASE_URL, COLDCHAIN_CLIENT_ID, COLDCHAIN_CLIENT_SECRET)", file=sys.stderr)
        return 2
    client = ColdchainClient(base_url, client_id, client_secret, account_id=os.environ.get("COLDCHAIN_ACCOUNT_ID") or None)

    # 1. Every device, page after page.
    devices = list(client.devices.iter_all())
    if not devices:
        raise SystemExit("quickstart: the account has no devices")

    # 2. One device's last 24 hours of telemetry.
    now = datetime.now(timezone.utc)
    points = list(client.telemetry.iter_all(devices[0]["id"], from_=now - timedelta(hours=24), to=now, limit=1000))

    # 3. A shipment with two free devices (in no active shipment): create, share, complete.
    busy = {device_id for shipment in client.shipments.iter_all(status="active") for device_id in shipment["device_ids"]}
    free = [device["id"] for device in devices if device["id"] not in busy]
    if len(free) < 2:
        raise SystemExit("quickstart: fewer than two devices are free (complete an active shipment)")
    origin = location_named(client, "Quickstart origin", "warehouse")
    destination = location_named(client, "Quickstart destination", "customer_site")
    shipment = client.shipments.create({
        "reference": f"QS-{uuid.uuid4().hex[:8].upper()}",
        "name": "Quick start shipment",
        "origin_location_id": origin,
        "destination_location_id": destination,
        "device_ids": free[:2],
    })
    share = client.shipments.share(shipment["id"], {"expires_in_hours": 24, "max_views": 25})
    client.shipments.complete(shipment["id"])

    # 4. The reports generated on completion; download one (streamed to a file).
    reports = []
    deadline = time.monotonic() + 60
    while not reports and time.monotonic() < deadline:
        reports = list(client.reports.iter_all(shipment_id=shipment["id"]))
        if not reports:
            time.sleep(0.5)
    if not reports:
        raise SystemExit(f"quickstart: no report for shipment {shipment['id']} after 60 s")
    report = max(reports, key=lambda r: r["size_bytes"])
    with tempfile.TemporaryDirectory() as directory:
        download = client.reports.download(report["id"], os.path.join(directory, report["name"]))

    # 5. A webhook as the service would send it, signed with a known secret, verified.
    secret = "whsec_quickstart_example_secret"
    body = json.dumps({
        "id": str(uuid.uuid4()),
        "type": "shipment.completed",
        "created_at": now.isoformat().replace("+00:00", "Z"),
        "data": {"id": shipment["id"]},
    }).encode("utf-8")
    timestamp = str(int(time.time()))
    signature = "v1=" + hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    headers = {"X-Service-Event": "shipment.completed", "X-Service-Timestamp": timestamp, "X-Service-Signature": signature}
    event = Webhook(secret).verify(body, headers)

    print(json.dumps({
        "devices": len(devices),
        "telemetry_points": len(points),
        "shipment_id": shipment["id"],
        "share_url": share["url"],
        "reports": len(reports),
        "downloaded_bytes": download.bytes_written,
        "webhook_verified": event["data"]["id"] == shipment["id"],
    }))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ColdchainError as error:
        print(f"quickstart: {error}", file=sys.stderr)
        sys.exit(1)
