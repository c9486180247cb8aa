"""Verifying and parsing the signed webhook requests the service sends (spec §6).

    from coldchain_client.webhooks import Webhook, WebhookVerificationError

    webhook = Webhook([current_secret, previous_secret])   # one or more secrets (rotation)
    try:
        event = webhook.verify(raw_body, request_headers)  # the exact bytes received
    except WebhookVerificationError:
        return 400
    if event["type"] == "alarm.created":
        alarm = event["data"]

The signature is ``v1=`` + hex HMAC-SHA256 of ``{X-Service-Timestamp}.{raw body}``; a request is
accepted when the timestamp is within 300 seconds of the receiver's clock and the signature
matches one of the secrets (compared in constant time). Unknown event types are passed through:
check ``event["type"]`` and ignore what you do not handle.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, cast

from ._generated import Alarm, Shipment
from .errors import ColdchainError

__all__ = [
    "Webhook",
    "WebhookVerificationError",
    "WebhookEvent",
    "AlarmCreatedEvent",
    "AlarmResolvedEvent",
    "ShipmentCreatedEvent",
    "ShipmentCompletedEvent",
    "UnknownWebhookEvent",
    "verify_webhook",
    "sign_webhook",
    "EVENT_TYPES",
    "DEFAULT_TOLERANCE_SECONDS",
    "HEADER_EVENT",
    "HEADER_EVENT_ID",
    "HEADER_DELIVERY_ID",
    "HEADER_TIMESTAMP",
    "HEADER_SIGNATURE",
]

DEFAULT_TOLERANCE_SECONDS = 300
SIGNATURE_VERSION = "v1"
HEADER_EVENT = "X-Service-Event"
HEADER_EVENT_ID = "X-Service-Event-ID"
HEADER_DELIVERY_ID = "X-Service-Delivery-ID"
HEADER_TIMESTAMP = "X-Service-Timestamp"
HEADER_SIGNATURE = "X-Service-Signature"
EVENT_TYPES = ("alarm.created", "alarm.resolved", "shipment.created", "shipment.completed")


class AlarmCreatedEvent(TypedDict):
    id: str
    type: Literal["alarm.created"]
    created_at: str
    data: Alarm


class AlarmResolvedEvent(TypedDict):
    id: str
    type: Literal["alarm.resolved"]
    created_at: str
    data: Alarm


class ShipmentCreatedEvent(TypedDict):
    id: str
    type: Literal["shipment.created"]
    created_at: str
    #: The representation ``GET /shipments/{id}/`` returns.
    data: Shipment


class ShipmentCompletedEvent(TypedDict):
    id: str
    type: Literal["shipment.completed"]
    created_at: str
    data: Shipment


class UnknownWebhookEvent(TypedDict):
    """An event type this version of the client does not know (new types may appear at any time)."""

    id: str
    type: str
    created_at: str
    data: Dict[str, Any]


WebhookEvent = Union[AlarmCreatedEvent, AlarmResolvedEvent, ShipmentCreatedEvent, ShipmentCompletedEvent, UnknownWebhookEvent]

Headers = Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]


class WebhookVerificationError(ColdchainError):
    """The request is not a genuine, fresh webhook of the service: answer 400 and do not process it."""


def sign_webhook(secret: Union[str, bytes], timestamp: Union[int, str], payload: Union[bytes, str]) -> str:
    """The ``X-Service-Signature`` value for a body (for tests and local tooling)."""
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    body = payload.encode("utf-8") if isinstance(payload, str) else payload
    mac = hmac.new(key, f"{timestamp}.".encode("ascii") + body, hashlib.sha256)
    return f"{SIGNATURE_VERSION}={mac.hexdigest()}"


def _header(headers: Headers, name: str) -> Optional[str]:
    wanted = name.lower()
    items = headers.items() if hasattr(headers, "items") else headers
    for key, value in items:
        if str(key).lower() == wanted:
            if isinstance(value, (list, tuple)):
                value = value[0] if value else None
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            return None if value is None else str(value)
    return None


class Webhook:
    """Verifier for one endpoint: holds its signing secret(s). ``repr`` never shows them."""

    def __init__(self, secrets: Union[str, bytes, Sequence[Union[str, bytes]]], *, tolerance: int = DEFAULT_TOLERANCE_SECONDS) -> None:
        listed = [secrets] if isinstance(secrets, (str, bytes)) else list(secrets)
        self._keys: List[bytes] = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in listed if s]
        if not self._keys:
            raise ValueError("at least one signing secret is required")
        if tolerance <= 0 or tolerance > DEFAULT_TOLERANCE_SECONDS:
            raise ValueError("tolerance must be between 1 and 300 seconds")
        self.tolerance = tolerance

    def __repr__(self) -> str:
        return f"Webhook(<{len(self._keys)} secret(s) redacted>, tolerance={self.tolerance})"

    def verify(self, payload: Union[bytes, str], headers: Headers, *, now: Optional[float] = None) -> WebhookEvent:
        """Checks timestamp and signature, then parses the body into a typed event.

        ``payload`` must be the exact bytes received (not re-serialized JSON); ``headers`` any
        mapping or list of pairs (case-insensitive names; list values use the first).
        Raises :class:`WebhookVerificationError` on any failure.
        """
        body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        timestamp = _header(headers, HEADER_TIMESTAMP)
        signatures = _header(headers, HEADER_SIGNATURE)
        if not timestamp or not timestamp.isdigit() or len(timestamp) > 12:
            raise WebhookVerificationError(f"missing or malformed {HEADER_TIMESTAMP} header")
        if not signatures:
            raise WebhookVerificationError(f"missing {HEADER_SIGNATURE} header")
        _check_timestamp(timestamp, self.tolerance, now)
        received = [s.strip().encode("ascii", "replace") for s in signatures.replace(",", " ").split() if s.strip().startswith(f"{SIGNATURE_VERSION}=")]
        _check_signatures([sign_webhook(key, timestamp, body).encode("ascii") for key in self._keys], received)
        event = _parse_envelope(body)
        event_id = _header(headers, HEADER_EVENT_ID)
        if event_id is not None and event_id != event["id"]:
            raise WebhookVerificationError(f"{HEADER_EVENT_ID} does not match the body's id")
        event.setdefault("data", {})
        return cast(WebhookEvent, event)



def _check_timestamp(timestamp: str, tolerance: int, now: Optional[float]) -> None:
    current = time.time() if now is None else now
    if abs(int(current) - int(timestamp)) > tolerance:
        raise WebhookVerificationError(f"timestamp outside the tolerance of {tolerance} seconds")


def _check_signatures(expected: Sequence[bytes], received: Sequence[bytes]) -> None:
    matched = False
    for signature in expected:
        for candidate in received:
            # every comparison runs, in constant time each
            matched = hmac.compare_digest(signature, candidate) or matched
    if not matched:
        raise WebhookVerificationError("signature does not match")


def _parse_envelope(body: bytes) -> Dict[str, Any]:
    try:
        event = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("body is not JSON") from None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str) or not isinstance(event.get("id"), str):
        raise WebhookVerificationError("body is not an event envelope")
    return event

def verify_webhook(
    payload: Union[bytes, str],
    headers: Headers,
    secrets: Union[str, bytes, Sequence[Union[str, bytes]]],
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> WebhookEvent:
    """``Webhook(secrets, tolerance=...).verify(payload, headers)`` in one call."""
    return Webhook(secrets, tolerance=tolerance).verify(payload, headers, now=now)
