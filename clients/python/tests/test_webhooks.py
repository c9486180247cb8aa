"""Webhook verification and parsing (no service needed)."""
from __future__ import annotations

import json
import unittest

from _support import PACKAGE_ROOT  # noqa: F401 - puts the package on sys.path

from coldchain_client import Webhook, WebhookVerificationError, sign_webhook, verify_webhook

SECRET = "whsec_test_secret"
BODY = b'{"id":"6c1f2a5e-0000-4000-8000-000000000001","type":"alarm.created","created_at":"2026-01-01T00:00:00.000Z","data":{"message":"too warm"}}'
TIMESTAMP = 1767225600
# computed with Node's crypto the way libs/webhook-kit/src/signature.ts signs
SIGNATURE = "v1=1b8dfc5087665fa27b54bc5d4c3b353f3e86243a25f0940e82aa8a0922e57019"


def headers(signature: str = SIGNATURE, timestamp: int = TIMESTAMP, event: str = "alarm.created") -> dict:
    return {
        "Content-Type": "application/json; charset=utf-8",
        "X-Service-Event": event,
        "X-Service-Event-ID": "6c1f2a5e-0000-4000-8000-000000000001",
        "X-Service-Delivery-ID": "0f0e0d0c-0000-4000-8000-000000000002",
        "X-Service-Timestamp": str(timestamp),
        "X-Service-Signature": signature,
    }


class WebhookTests(unittest.TestCase):
    def test_signs_like_the_service(self) -> None:
        self.assertEqual(sign_webhook(SECRET, TIMESTAMP, BODY), SIGNATURE)

    def test_verifies_and_parses_a_typed_event(self) -> None:
        event = Webhook(SECRET).verify(BODY, headers(), now=TIMESTAMP + 10)
        self.assertEqual(event["type"], "alarm.created")
        self.assertEqual(event["id"], "6c1f2a5e-0000-4000-8000-000000000001")
        self.assertEqual(event["data"], {"message": "too warm"})

    def test_header_names_are_case_insensitive_and_lists_use_the_first_value(self) -> None:
        lowered = {k.lower(): [v] for k, v in headers().items()}
        self.assertEqual(verify_webhook(BODY, lowered, SECRET, now=TIMESTAMP)["type"], "alarm.created")
        pairs = list(headers().items())
        self.assertEqual(verify_webhook(BODY.decode(), pairs, SECRET, now=TIMESTAMP)["type"], "alarm.created")

    def test_accepts_any_of_several_secrets_during_a_rotation(self) -> None:
        event = Webhook(["whsec_new_secret", SECRET]).verify(BODY, headers(), now=TIMESTAMP)
        self.assertEqual(event["type"], "alarm.created")

    def test_rejects_a_wrong_secret_a_changed_body_and_a_changed_timestamp(self) -> None:
        with self.assertRaises(WebhookVerificationError):
            Webhook("whsec_other").verify(BODY, headers(), now=TIMESTAMP)
        with self.assertRaises(WebhookVerificationError):
            Webhook(SECRET).verify(BODY + b" ", headers(), now=TIMESTAMP)
        with self.assertRaises(WebhookVerificationError):
            Webhook(SECRET).verify(BODY, headers(timestamp=TIMESTAMP + 1), now=TIMESTAMP)
        reserialized = json.dumps(json.loads(BODY)).encode()
        with self.assertRaises(WebhookVerificationError):
            Webhook(SECRET).verify(reserialized, headers(), now=TIMESTAMP)

    def test_tolerance_is_300_seconds_either_way(self) -> None:
        webhook = Webhook(SECRET)
        webhook.verify(BODY, headers(), now=TIMESTAMP + 300)
        webhook.verify(BODY, headers(), now=TIMESTAMP - 300)
        for now in (TIMESTAMP + 301, TIMESTAMP - 301):
            with self.assertRaisesRegex(WebhookVerificationError, "tolerance"):
                webhook.verify(BODY, headers(), now=now)
        with self.assertRaises(ValueError):
            Webhook(SECRET, tolerance=301)

    def test_rejects_missing_or_malformed_headers(self) -> None:
        for name in ("X-Service-Timestamp", "X-Service-Signature"):
            broken = headers()
            del broken[name]
            with self.assertRaises(WebhookVerificationError):
                Webhook(SECRET).verify(BODY, broken, now=TIMESTAMP)
        for value in ("abc", "-5", "1" * 13):
            broken = headers()
            broken["X-Service-Timestamp"] = value
            with self.assertRaises(WebhookVerificationError):
                Webhook(SECRET).verify(BODY, broken, now=TIMESTAMP)
        for signature in ("v2=" + SIGNATURE[3:], SIGNATURE[3:], SIGNATURE.upper(), "v1="):
            with self.assertRaises(WebhookVerificationError):
                Webhook(SECRET).verify(BODY, headers(signature=signature), now=TIMESTAMP)

    def test_passes_unknown_event_types_through(self) -> None:
        body = b'{"id":"6c1f2a5e-0000-4000-8000-000000000001","type":"device.teleported","created_at":"2026-01-01T00:00:00Z","data":{"x":1}}'
        signature = sign_webhook(SECRET, TIMESTAMP, body)
        event = Webhook(SECRET).verify(body, headers(signature, event="device.teleported"), now=TIMESTAMP)
        self.assertEqual(event["type"], "device.teleported")
        self.assertEqual(event["data"], {"x": 1})

    def test_the_event_id_header_must_be_the_body_id(self) -> None:
        other = {**headers(), "X-Service-Event-ID": "6c1f2a5e-0000-4000-8000-0000000000ff"}
        with self.assertRaisesRegex(WebhookVerificationError, "X-Service-Event-ID"):
            Webhook(SECRET).verify(BODY, other, now=TIMESTAMP)

    def test_a_tolerance_above_300_seconds_is_refused(self) -> None:
        for tolerance in (301, 3600):
            with self.assertRaises(ValueError):
                Webhook(SECRET, tolerance=tolerance)
            with self.assertRaises(ValueError):
                verify_webhook(BODY, headers(), SECRET, tolerance=tolerance, now=TIMESTAMP)

    def test_a_signed_body_that_is_not_an_event_is_rejected(self) -> None:
        for body in (b"not json", b"[1,2]", b'{"type":"alarm.created"}'):
            with self.assertRaises(WebhookVerificationError):
                Webhook(SECRET).verify(body, headers(sign_webhook(SECRET, TIMESTAMP, body)), now=TIMESTAMP)

    def test_never_shows_the_secret(self) -> None:
        webhook = Webhook([SECRET, "whsec_second"])
        self.assertNotIn("whsec", repr(webhook))
        self.assertNotIn("whsec", str(webhook))
        try:
            webhook.verify(BODY, headers(signature="v1=" + "0" * 64), now=TIMESTAMP)
        except WebhookVerificationError as error:
            self.assertNotIn(SECRET, str(error))
            self.assertNotIn(SECRET, repr(error))


if __name__ == "__main__":
    unittest.main()
