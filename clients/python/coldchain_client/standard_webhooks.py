"""Verifying webhook requests in the Standard Webhooks format (standardwebhooks.com).

For endpoints whose signature format is ``standard-webhooks``: beside the X-Service-* headers
their requests carry ``webhook-id`` (the event id), ``webhook-timestamp`` (Unix seconds) and
``webhook-signature`` -- space-separated ``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{raw body}">``,
two of them during a secret rotation window. The key is the bytes of the ``whsec_`` secret's
base64, as the format's own libraries read it.

    from coldchain_client import StandardWebhook, WebhookVerificationError

    webhook = StandardWebhook([current_secret, previous_secret])   # whsec_... as shown once
    try:
        event = webhook.verify(raw_body, request_headers)            # the exact bytes received
    except WebhookVerificationError:
        return 400
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import List, Optional, Sequence, Union

from .webhooks import DEFAULT_TOLERANCE_SECONDS, Headers, WebhookEvent, WebhookVerificationError, _check_signatures, _check_timestamp, _header, _parse_envelope

__all__ = [
    "StandardWebhook",
    "verify_standard_webhook",
    "sign_standard_webhook",
    "STANDARD_HEADER_ID",
    "STANDARD_HEADER_TIMESTAMP",
    "STANDARD_HEADER_SIGNATURE",
]

STANDARD_HEADER_ID = "webhook-id"
STANDARD_HEADER_TIMESTAMP = "webhook-timestamp"
STANDARD_HEADER_SIGNATURE = "webhook-signature"
_PREFIX = "whsec_"


def _key(secret: Union[str, bytes]) -> bytes:
    """The HMAC key of a ``whsec_`` secret: the bytes its base64 encodes (standard or URL-safe alphabet)."""
    text = secret.decode("ascii") if isinstance(secret, bytes) else secret
    encoded = text[len(_PREFIX):] if text.startswith(_PREFIX) else text
    encoded = encoded.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a Standard Webhooks secret is whsec_ followed by base64") from None
    if not key:
        raise ValueError("a signing secret is empty")
    return key


def _sign_with_key(key: bytes, msg_id: str, timestamp: Union[int, str], body: bytes) -> str:
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode("ascii")


def sign_standard_webhook(secret: Union[str, bytes], msg_id: str, timestamp: Union[int, str], payload: Union[bytes, str]) -> str:
    """One ``v1,<base64>`` entry of ``webhook-signature`` (for tests and local tooling)."""
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    return _sign_with_key(_key(secret), msg_id, timestamp, body)


class StandardWebhook:
    """Verifier for one Standard Webhooks endpoint: holds its ``whsec_`` secret(s). ``repr`` never shows them."""

    def __init__(self, secrets: Union[str, bytes, Sequence[Union[str, bytes]]], *, tolerance: int = DEFAULT_TOLERANCE_SECONDS) -> None:
        listed = [secrets] if isinstance(secrets, (str, bytes)) else list(secrets)
        self._keys: List[bytes] = [_key(s) for s in listed if s]
        if not self._keys:
            raise ValueError("at least one signing secret is required")
        if tolerance <= 0 or tolerance > DEFAULT_TOLERANCE_SECONDS:
            raise ValueError("tolerance must be between 1 and 300 seconds")
        self.tolerance = tolerance

    def __repr__(self) -> str:
        return f"StandardWebhook(<{len(self._keys)} secret(s) redacted>, tolerance={self.tolerance})"

    def verify(self, payload: Union[bytes, str], headers: Headers, *, now: Optional[float] = None) -> WebhookEvent:
        """Checks the timestamp, every ``v1,`` signature against every secret (constant time) and
        that ``webhook-id`` is the body's ``id``; then parses the event. Raises
        :class:`WebhookVerificationError` on any failure.
        """
        if not isinstance(payload, (bytes, bytearray, memoryview, str)):
            raise WebhookVerificationError("the payload must be the raw request body (bytes or str), not parsed JSON")
        body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        msg_id = _header(headers, STANDARD_HEADER_ID)
        timestamp = _header(headers, STANDARD_HEADER_TIMESTAMP)
        signatures = _header(headers, STANDARD_HEADER_SIGNATURE)
        if not msg_id:
            raise WebhookVerificationError(f"missing {STANDARD_HEADER_ID} header")
        if not timestamp or not timestamp.isdigit() or len(timestamp) > 12:
            raise WebhookVerificationError(f"missing or malformed {STANDARD_HEADER_TIMESTAMP} header")
        if not signatures:
            raise WebhookVerificationError(f"missing {STANDARD_HEADER_SIGNATURE} header")
        _check_timestamp(timestamp, self.tolerance, now)
        received = [s.encode("ascii", "replace") for s in signatures.split(" ") if s.startswith("v1,")]
        _check_signatures([_sign_with_key(key, msg_id, timestamp, body).encode("ascii") for key in self._keys], received)
        event = _parse_envelope(body)
        if event["id"] != msg_id:
            raise WebhookVerificationError(f"{STANDARD_HEADER_ID} does not match the body")
        event.setdefault("data", {})
        return event  # type: ignore[return-value]


def verify_standard_webhook(
    payload: Union[bytes, str],
    headers: Headers,
    secrets: Union[str, bytes, Sequence[Union[str, bytes]]],
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> WebhookEvent:
    """``StandardWebhook(secrets, tolerance=...).verify(payload, headers)`` in one call."""
    return StandardWebhook(secrets, tolerance=tolerance).verify(payload, headers, now=now)
