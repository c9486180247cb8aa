"""Official Python client of the Cold Chain Telemetry Public API v1.

    from coldchain_client import ColdchainClient

    client = ColdchainClient(base_url, client_id, client_secret)
    for device in client.devices.iter_all():
        print(device["serial_number"])

Standard library only; Python 3.9 or later. See README.md.
"""
from ._base import DownloadResult, Operation, Page
from . import _generated
from ._generated import *  # noqa: F401,F403 - the TypedDicts of every schema
from ._generated import API_VERSION, OPERATIONS, RESOURCES, SCOPES
from ._version import __version__
from .client import ApiList, ApiObject, ColdchainClient, ResponseInfo, response_of
from .errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    AuthenticationError,
    BadRequestError,
    ColdchainError,
    ConflictError,
    DownloadError,
    FieldError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    UnprocessableEntityError,
)
from .standard_webhooks import StandardWebhook, sign_standard_webhook, verify_standard_webhook
from .webhooks import Webhook, WebhookEvent, WebhookVerificationError, sign_webhook, verify_webhook

__all__ = [
    "ColdchainClient",
    "ResponseInfo",
    "ApiObject",
    "ApiList",
    "response_of",
    "Page",
    "DownloadResult",
    "Operation",
    "OPERATIONS",
    "RESOURCES",
    "SCOPES",
    "API_VERSION",
    "ApiError",
    "ApiConnectionError",
    "ApiTimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ColdchainError",
    "ConflictError",
    "DownloadError",
    "FieldError",
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "Webhook",
    "StandardWebhook",
    "sign_standard_webhook",
    "verify_standard_webhook",
    "WebhookEvent",
    "WebhookVerificationError",
    "sign_webhook",
    "verify_webhook",
    "__version__",
]
# The TypedDicts of every schema (Alarm, Shipment, TelemetryPoint, ...) are part of the public API.
__all__ += _generated.__all__


def __getattr__(name: str) -> object:
    """The schema names of 1.0.0 (``AlarmDto``...) still resolve, with a DeprecationWarning."""
    if name.endswith("Dto") and hasattr(_generated, name[:-3]) and name[:-3] in __all__:
        import warnings

        warnings.warn(f"coldchain_client.{name} is deprecated: use {name[:-3]}", DeprecationWarning, stacklevel=2)
        return getattr(_generated, name[:-3])
    raise AttributeError(f"module 'coldchain_client' has no attribute {name!r}")
