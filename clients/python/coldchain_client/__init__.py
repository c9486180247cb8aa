"""Official Python client of the Cold Chain Telemetry Public API v1.

    from coldchain_client import ColdchainClient

    client = ColdchainClient(base_url, client_id, client_secret)
    for device in client.devices.iter_all():
        print(device["serial_number"])

Standard library only; Python 3.9 or later. See README.md.
"""
from ._base import DownloadResult, Operation, Page
from ._generated import *  # noqa: F401,F403 - the TypedDicts of every schema
from ._generated import API_VERSION, OPERATIONS, RESOURCES, SCOPES
from ._version import __version__
from .client import ColdchainClient, ResponseInfo
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
