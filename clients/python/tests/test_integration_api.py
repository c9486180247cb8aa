"""Against the running service (skipped unless COLDCHAIN_BASE_URL is set).

test/clients/python.e2e-spec.ts boots the api, creates the data and sets:
COLDCHAIN_BASE_URL, COLDCHAIN_CLIENT_ID, COLDCHAIN_CLIENT_SECRET (one account, every scope),
COLDCHAIN_MULTI_CLIENT_ID, COLDCHAIN_MULTI_CLIENT_SECRET (accounts A and B),
COLDCHAIN_ACCOUNT_A, COLDCHAIN_ACCOUNT_B, COLDCHAIN_FOREIGN_ACCOUNT, COLDCHAIN_TELEMETRY_DEVICE.
"""
from __future__ import annotations

import hashlib
import io
import os
import tempfile
import time
import unittest
import uuid
from datetime import datetime, timedelta, timezone

from _support import PACKAGE_ROOT  # noqa: F401 - puts the package on sys.path

from coldchain_client import (
    response_of,
    AuthenticationError,
    BadRequestError,
    ColdchainClient,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    UnprocessableEntityError,
)

ENV = os.environ
BASE_URL = ENV.get("COLDCHAIN_BASE_URL")
CIRCLE = {"type": "circle", "center": {"latitude": 38.4382, "longitude": 27.1442}, "radius_m": 750}


def client(**options) -> ColdchainClient:
    return ColdchainClient(BASE_URL or "", ENV["COLDCHAIN_CLIENT_ID"], ENV["COLDCHAIN_CLIENT_SECRET"], **options)


@unittest.skipUnless(BASE_URL, "needs a running service: set COLDCHAIN_BASE_URL and the credentials")
class LiveApiTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.client = client()
        suffix = uuid.uuid4().hex[:8]
        cls.origin = cls.client.locations.create({"name": f"Origin {suffix}", "kind": "warehouse", "geofence": CIRCLE})
        cls.destination = cls.client.locations.create({"name": f"Destination {suffix}", "kind": "port", "geofence": CIRCLE})

    def free_devices(self, count: int) -> list:
        busy = {d for s in self.client.shipments.iter_all(status="active") for d in s["device_ids"]}
        free = [d["id"] for d in self.client.devices.iter_all() if d["id"] not in busy]
        self.assertGreaterEqual(len(free), count, "not enough free devices")
        return free[:count]

    def new_shipment(self, reference: str) -> dict:
        return self.client.shipments.create({
            "reference": reference,
            "name": f"Python e2e {reference}",
            "origin_location_id": self.origin["id"],
            "destination_location_id": self.destination["id"],
            "device_ids": self.free_devices(2),
        })

    # -------------------------------------------------------------- token

    def test_token_is_fetched_once_cached_and_refreshed(self) -> None:
        c = client()
        self.assertEqual(c._tokens.fetches, 0)
        c.devices.list(limit=1)
        c.accounts.list()
        c.roles.list()
        self.assertEqual(c._tokens.fetches, 1)
        # shortly before expiry: a new token is fetched before the call
        c._tokens.token.refresh_at = 0
        c.devices.list(limit=1)
        self.assertEqual(c._tokens.fetches, 2)
        # a token the service refuses (401): fetched again once, and the call succeeds
        c._tokens.token.value = "eyJhbGciOiJIUzI1NiJ9.e30.invalid"
        self.assertIsInstance(c.devices.list(limit=1).data, list)
        self.assertEqual(c._tokens.fetches, 3)
        # with_account shares the cache
        c.with_account(None).devices.list(limit=1)
        self.assertEqual(c._tokens.fetches, 3)

    def test_bad_credentials_are_a_typed_error_without_the_secret(self) -> None:
        secret = "wrong-" + ENV["COLDCHAIN_CLIENT_SECRET"]
        bad = ColdchainClient(BASE_URL or "", ENV["COLDCHAIN_CLIENT_ID"], secret)
        with self.assertRaises(AuthenticationError) as caught:
            bad.devices.list()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_client"))
        self.assertNotIn(secret, str(caught.exception))
        self.assertNotIn(secret, repr(bad))

    def test_scopes_narrow_the_token(self) -> None:
        narrow = client(scopes=["devices:read"])
        narrow.devices.list(limit=1)
        with self.assertRaises(PermissionDeniedError) as caught:
            narrow.alarms.list()
        self.assertEqual(caught.exception.code, "insufficient_scope")

    # -------------------------------------------------------------- accounts

    def test_account_selection(self) -> None:
        a, b = ENV["COLDCHAIN_ACCOUNT_A"], ENV["COLDCHAIN_ACCOUNT_B"]
        multi = ColdchainClient(BASE_URL or "", ENV["COLDCHAIN_MULTI_CLIENT_ID"], ENV["COLDCHAIN_MULTI_CLIENT_SECRET"])
        with self.assertRaises(BadRequestError) as caught:
            multi.devices.list()
        self.assertEqual(caught.exception.code, "account_selection_required")
        self.assertEqual({acc["id"] for acc in multi.accounts.iter_all()}, {a, b})

        devices_of_a = {d["id"] for d in client().devices.iter_all()}
        in_a = multi.with_account(a)
        self.assertEqual({d["id"] for d in in_a.devices.iter_all()}, devices_of_a)
        devices_of_b = {d["id"] for d in in_a.devices.iter_all(account_id=b)}  # switched for one call
        self.assertTrue(devices_of_b)
        self.assertFalse(devices_of_a & devices_of_b)
        self.assertEqual({d["id"] for d in ColdchainClient(BASE_URL or "", ENV["COLDCHAIN_MULTI_CLIENT_ID"], ENV["COLDCHAIN_MULTI_CLIENT_SECRET"], account_id=b).devices.iter_all()}, devices_of_b)
        with self.assertRaises(PermissionDeniedError) as caught:
            multi.devices.list(account_id=ENV["COLDCHAIN_FOREIGN_ACCOUNT"])
        self.assertEqual(caught.exception.code, "account_not_allowed")
        self.assertEqual(multi.accounts.get(b)["id"], b)

    # -------------------------------------------------------------- paging

    def test_auto_paging_follows_links_next_across_pages(self) -> None:
        first = self.client.devices.list(limit=2)
        self.assertEqual(len(first.data), 2)
        self.assertTrue(first.has_more)
        pages = 0
        page = first
        while page is not None:
            pages += 1
            page = page.next_page()
        self.assertGreaterEqual(pages, 3)
        walked = [d["id"] for d in self.client.devices.iter_all(limit=2)]
        self.assertEqual(len(walked), len(set(walked)))
        self.assertEqual(walked, [d["id"] for d in self.client.devices.list(limit=200).data])
        self.assertEqual([d["id"] for d in first.auto_paging_iter()], walked)

    def test_telemetry_points_and_buckets(self) -> None:
        device = ENV["COLDCHAIN_TELEMETRY_DEVICE"]
        now = datetime.now(timezone.utc)
        points = list(self.client.telemetry.iter_all(device, from_=now - timedelta(hours=24), to=now, limit=5))
        self.assertGreater(len(points), 5)  # more than one page of 5
        self.assertIn("recorded_at", points[0])
        buckets = self.client.telemetry.list(device, from_=now - timedelta(hours=6), to=now, bucket="1h").data
        self.assertTrue(buckets)
        self.assertIn("bucket_start", buckets[0])
        self.assertGreater(sum(b["count"] for b in buckets), 0)

    # -------------------------------------------------------------- idempotency

    def test_a_create_replayed_with_the_same_key_creates_nothing_new(self) -> None:
        key = f"py-e2e-{uuid.uuid4()}"
        body = {"name": f"Replay {key}", "kind": "warehouse", "geofence": CIRCLE}
        first = self.client.locations.create(body, idempotency_key=key)
        self.assertFalse(self.client.last_response.idempotent_replayed)
        again = self.client.locations.create(body, idempotency_key=key)
        self.assertTrue(self.client.last_response.idempotent_replayed)
        self.assertEqual(again, first)
        # each result carries its own response (not per-thread state)
        self.assertFalse(response_of(first).idempotent_replayed)
        self.assertTrue(response_of(again).idempotent_replayed)
        self.assertEqual(response_of(again).idempotency_key, key)
        self.assertEqual(response_of(again).status, 201)
        self.assertIsNotNone(response_of(again).request_id)
        self.assertIsInstance(response_of(self.client.locations.list()).rate_limit_remaining, int)
        self.assertEqual(len([loc for loc in self.client.locations.iter_all() if loc["name"] == body["name"]]), 1)
        with self.assertRaises(UnprocessableEntityError) as caught:
            self.client.locations.create({**body, "name": "Another"}, idempotency_key=key)
        self.assertEqual(caught.exception.code, "idempotency_key_reused")
        # without a key of one's own, each create gets a new one
        generated = self.client.carriers.create({"name": f"Carrier {key}", "mode": "road"})
        self.assertFalse(self.client.last_response.idempotent_replayed)
        self.assertEqual(self.client.carriers.get(generated["id"])["name"], f"Carrier {key}")

    # -------------------------------------------------------------- errors

    def test_typed_errors_for_400_404_and_409(self) -> None:
        with self.assertRaises(BadRequestError) as caught:
            self.client.carriers.create({"name": "", "colour": "red"})  # type: ignore[typeddict-unknown-key]
        error = caught.exception
        self.assertEqual((error.status, error.code), (400, "validation_failed"))
        self.assertTrue(error.title)
        self.assertTrue(error.request_id)
        self.assertTrue({"name", "colour"} <= {e.field for e in error.errors}, error.errors)

        with self.assertRaises(NotFoundError) as caught404:
            self.client.devices.get(str(uuid.uuid4()))
        self.assertEqual((caught404.exception.status, caught404.exception.code), (404, "not_found"))
        self.assertTrue(caught404.exception.request_id)
        self.assertIn(caught404.exception.request_id, str(caught404.exception))

        shipment = self.new_shipment(f"PY-409-{uuid.uuid4().hex[:6]}")
        self.client.shipments.complete(shipment["id"])
        with self.assertRaises(ConflictError) as caught409:
            self.client.shipments.complete(shipment["id"])
        self.assertEqual((caught409.exception.status, caught409.exception.code), (409, "shipment_not_active"))
        self.assertTrue(caught409.exception.detail)

    # -------------------------------------------------------------- shipments and reports

    def test_shipment_share_complete_and_a_streamed_report_download(self) -> None:
        shipment = self.new_shipment(f"PY-{uuid.uuid4().hex[:6]}")
        self.assertEqual(shipment["status"], "active")
        share = self.client.shipments.share(shipment["id"], {"expires_in_hours": 24, "max_views": 10})
        self.assertTrue(share["enabled"])
        self.assertTrue(share["url"])
        self.assertEqual(self.client.shipments.get_share(shipment["id"])["url"], share["url"])
        tracking = self.client.shipments.list_tracking(shipment["id"])
        self.assertIsInstance(tracking.data, list)
        completed = self.client.shipments.complete(shipment["id"])
        self.assertEqual(completed["status"], "completed")

        deadline = time.monotonic() + 30
        reports = []
        while time.monotonic() < deadline:
            reports = list(self.client.reports.iter_all(shipment_id=shipment["id"]))
            if reports:
                break
            time.sleep(0.25)
        self.assertTrue(reports, "no report generated after completion")
        report = reports[0]
        self.assertEqual(self.client.reports.get(report["id"])["sha256"], report["sha256"])
        with tempfile.TemporaryDirectory() as directory:
            target = os.path.join(directory, report["name"])
            result = self.client.reports.download(report["id"], target)
            self.assertEqual(result.bytes_written, report["size_bytes"])
            self.assertEqual(os.path.getsize(target), report["size_bytes"])
            with open(target, "rb") as handle:
                self.assertEqual(hashlib.sha256(handle.read()).hexdigest(), report["sha256"])
        self.assertEqual(result.sha256, report["sha256"])
        self.assertEqual(result.content_type.split(";")[0], report["content_type"])
        sink = io.BytesIO()
        self.client.reports.download(report["id"], sink)
        self.assertEqual(hashlib.sha256(sink.getvalue()).hexdigest(), report["sha256"])


if __name__ == "__main__":
    unittest.main()
