"""Standard Webhooks verification (no service needed)."""
from __future__ import annotations

import json
import unittest

from _support import PACKAGE_ROOT  # noqa: F401 - puts the package on sys.path

from coldchain_client import StandardWebhook, WebhookVerificationError, sign_standard_webhook, verify_standard_webhook

SECRET = "whsec_AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM="  # 32 bytes of 0x03
PREVIOUS = "whsec_BAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ="  # 32 bytes of 0x04
EVENT_ID = "6c1f2a5e-0000-4000-8000-000000000001"
BODY = b'{"id":"6c1f2a5e-0000-4000-8000-000000000001","type":"alarm.created","created_at":"2026-01-01T00:00:00.000Z","data":{"message":"too warm"}}'
TIMESTAMP = 1767225600
# signed with the format's reference library (standardwebhooks on npm): Webhook(secret).sign(id, date, body)
SIGNATURE = "v1,yzYzLJ/BnfmP6yK3oD032uFwYX5ZKHRm9JFa7hI3yRo="
PREVIOUS_SIGNATURE = "v1,o/95EwXswQPPo64/0n3UKHtT1aMUzHGM2I4bmQRymzI="


def headers(signature: str = SIGNATURE, timestamp: int = TIMESTAMP, msg_id: str = EVENT_ID) -> dict:
    return {
        "Content-Type": "application/json; charset=utf-8",
        "Webhook-Id": msg_id,
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": signature,
    }


class StandardWebhookTests(unittest.TestCase):
    def test_signs_as_the_published_vector_and_the_reference_library(self) -> None:
        self.assertEqual(
            sign_standard_webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}'),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        )
        self.assertEqual(sign_standard_webhook(SECRET, EVENT_ID, TIMESTAMP, BODY), SIGNATURE)
        self.assertEqual(sign_standard_webhook(PREVIOUS, EVENT_ID, TIMESTAMP, BODY), PREVIOUS_SIGNATURE)

    def test_verifies_and_parses_with_several_secrets_and_several_signatures(self) -> None:
        event = verify_standard_webhook(BODY, headers(), SECRET, now=TIMESTAMP)
        self.assertEqual(event["type"], "alarm.created")
        self.assertEqual(event["id"], EVENT_ID)
        rotation = headers(f"{SIGNATURE} {PREVIOUS_SIGNATURE}")
        self.assertEqual(StandardWebhook(PREVIOUS).verify(BODY, rotation, now=TIMESTAMP)["id"], EVENT_ID)
        self.assertEqual(StandardWebhook(SECRET).verify(BODY, rotation, now=TIMESTAMP)["id"], EVENT_ID)
        self.assertEqual(StandardWebhook([PREVIOUS, SECRET]).verify(BODY.decode(), headers(), now=TIMESTAMP)["id"], EVENT_ID)
        # unknown versions are skipped; header names in any case, list values use the first
        self.assertEqual(verify_standard_webhook(BODY, [("webhook-id", [EVENT_ID]), ("WEBHOOK-TIMESTAMP", str(TIMESTAMP)), ("webhook-signature", f"v2,abc {SIGNATURE}")], SECRET, now=TIMESTAMP)["id"], EVENT_ID)

    def test_reads_base64url_secrets_issued_before_the_format(self) -> None:
        legacy = "whsec_" + "AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM"  # no padding
        self.assertEqual(sign_standard_webhook(legacy, EVENT_ID, TIMESTAMP, BODY), SIGNATURE)
        url_safe = "whsec_-_-_" + "A" * 40
        self.assertEqual(sign_standard_webhook(url_safe, "e", 1, b"{}"), sign_standard_webhook("whsec_+/+/" + "A" * 40, "e", 1, b"{}"))

    def test_rejects_a_wrong_secret_a_changed_body_a_stale_timestamp_and_a_foreign_id(self) -> None:
        with self.assertRaises(WebhookVerificationError):
            verify_standard_webhook(BODY, headers(), PREVIOUS, now=TIMESTAMP)
        with self.assertRaises(WebhookVerificationError):
            verify_standard_webhook(BODY + b" ", headers(), SECRET, now=TIMESTAMP)
        with self.assertRaises(WebhookVerificationError):
            verify_standard_webhook(BODY, headers(), SECRET, now=TIMESTAMP + 301)
        with self.assertRaises(WebhookVerificationError):
            verify_standard_webhook(BODY, headers(), SECRET, now=TIMESTAMP - 301)
        self.assertEqual(verify_standard_webhook(BODY, headers(), SECRET, now=TIMESTAMP + 300)["id"], EVENT_ID)
        other = sign_standard_webhook(SECRET, "e2", TIMESTAMP, BODY)
        with self.assertRaisesRegex(WebhookVerificationError, "webhook-id does not match"):
            verify_standard_webhook(BODY, headers(other, msg_id="e2"), SECRET, now=TIMESTAMP)
        with self.assertRaisesRegex(WebhookVerificationError, "missing webhook-id"):
            verify_standard_webhook(BODY, {"webhook-timestamp": str(TIMESTAMP), "webhook-signature": SIGNATURE}, SECRET, now=TIMESTAMP)
        with self.assertRaises(WebhookVerificationError):
            verify_standard_webhook(json.loads(BODY), headers(), SECRET, now=TIMESTAMP)  # type: ignore[arg-type]

    def test_refuses_a_tolerance_above_300_seconds_and_never_shows_a_secret(self) -> None:
        with self.assertRaises(ValueError):
            StandardWebhook(SECRET, tolerance=301)
        with self.assertRaises(ValueError):
            StandardWebhook(SECRET, tolerance=0)
        with self.assertRaises(ValueError):
            StandardWebhook([])
        self.assertNotIn("AwMD", repr(StandardWebhook(SECRET)))
        try:
            verify_standard_webhook(BODY, headers(), PREVIOUS, now=TIMESTAMP)
        except WebhookVerificationError as error:
            self.assertNotIn("BAQE", str(error))


if __name__ == "__main__":
    unittest.main()
