"""Deliveries made by the real dispatcher verify (skipped unless COLDCHAIN_WEBHOOK_DELIVERIES is set).

COLDCHAIN_WEBHOOK_DELIVERIES names a JSON file of requests an HTTPS receiver got from the
dispatcher: ``[{"headers": {...}, "body": "<base64 of the raw bytes>"}]``; COLDCHAIN_WEBHOOK_SECRET
is the endpoint's signing secret; COLDCHAIN_WEBHOOK_EVENTS the event types expected among them.
"""
from __future__ import annotations

import base64
import json
import os
import unittest

from _support import PACKAGE_ROOT  # noqa: F401 - puts the package on sys.path

from coldchain_client import Webhook, WebhookVerificationError

ENV = os.environ
DELIVERIES = ENV.get("COLDCHAIN_WEBHOOK_DELIVERIES")


@unittest.skipUnless(DELIVERIES, "needs deliveries recorded from the dispatcher: set COLDCHAIN_WEBHOOK_DELIVERIES")
class DispatcherDeliveryTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        with open(DELIVERIES or "", encoding="utf-8") as handle:
            cls.deliveries = [(d["headers"], base64.b64decode(d["body"])) for d in json.load(handle)]
        cls.secret = ENV["COLDCHAIN_WEBHOOK_SECRET"]

    def test_every_delivery_verifies_and_parses_into_a_typed_event(self) -> None:
        webhook = Webhook(self.secret)
        seen = set()
        for headers, body in self.deliveries:
            event = webhook.verify(body, headers)
            self.assertEqual(event["id"], headers["x-service-event-id"])
            self.assertEqual(event["type"], headers["x-service-event"])
            seen.add(event["type"])
            if event["type"].startswith("shipment."):
                self.assertIsInstance(event["data"]["id"], int)
                self.assertIn(event["data"]["status"], ("active", "completed"))
            if event["type"].startswith("alarm."):
                self.assertIn(event["data"]["severity"], ("INFO", "WARNING", "CRITICAL"))
        self.assertTrue(set(ENV.get("COLDCHAIN_WEBHOOK_EVENTS", "").split(",")) <= seen, seen)

    def test_a_rotation_accepts_either_secret_and_a_wrong_one_fails(self) -> None:
        headers, body = self.deliveries[0]
        Webhook(["whsec_the_new_one_not_yet_used", self.secret]).verify(body, headers)
        with self.assertRaises(WebhookVerificationError):
            Webhook("whsec_wrong").verify(body, headers)
        with self.assertRaises(WebhookVerificationError):
            Webhook(self.secret).verify(body.replace(b"}", b" }", 1), headers)
        with self.assertRaises(WebhookVerificationError):
            Webhook(self.secret).verify(body, headers, now=int(headers["x-service-timestamp"]) + 301)


if __name__ == "__main__":
    unittest.main()
