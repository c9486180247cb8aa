"""Exceptions raised by the client.

Every failure answered by the service is an :class:`ApiError` (a subclass per status family),
carrying the RFC 9457 problem details (``status``, ``code``, ``title``, ``detail``, field
``errors``) and the ``X-Request-ID`` of the response. Network failures are
:class:`ApiConnectionError` / :class:`ApiTimeoutError`. Messages never contain a secret or a token.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Type

__all__ = [
    "ColdchainError",
    "ApiError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "UnprocessableEntityError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "ApiConnectionError",
    "ApiTimeoutError",
    "DownloadError",
    "FieldError",
]


class ColdchainError(Exception):
    """Base of every exception of this package."""


class FieldError(Dict[str, str]):
    """One entry of ``errors``: ``{"field", "code", "message"}``."""

    @property
    def field(self) -> str:
        return self.get("field", "")

    @property
    def code(self) -> str:
        return self.get("code", "")

    @property
    def message(self) -> str:
        return self.get("message", "")


class ApiError(ColdchainError):
    """The service answered with an error status."""

    status: int
    #: Stable machine-readable code, e.g. ``not_found``, ``validation_failed`` (OAuth errors: ``invalid_client``...).
    code: str
    title: str
    detail: Optional[str]
    #: Per-field problems of a ``validation_failed`` (and similar) answer.
    errors: List[FieldError]
    #: ``X-Request-ID`` of the response: quote it to support.
    request_id: Optional[str]
    type: Optional[str]
    instance: Optional[str]
    #: Present on 500 answers.
    error_id: Optional[str]
    #: Method and path (without query) of the request that failed.
    method: Optional[str]
    path: Optional[str]
    #: The parsed body (problem details or OAuth error), when it was JSON.
    body: Optional[Any]

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: Optional[str] = None,
        *,
        errors: Optional[List[Mapping[str, Any]]] = None,
        request_id: Optional[str] = None,
        type: Optional[str] = None,
        instance: Optional[str] = None,
        error_id: Optional[str] = None,
        method: Optional[str] = None,
        path: Optional[str] = None,
        body: Optional[Any] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = [FieldError({str(k): str(v) for k, v in e.items()}) for e in (errors or []) if isinstance(e, Mapping)]
        self.request_id = request_id
        self.type = type
        self.instance = instance
        self.error_id = error_id
        self.method = method
        self.path = path
        self.body = body
        self.headers: Dict[str, str] = dict(headers or {})
        super().__init__(self._message())

    def _message(self) -> str:
        text = f"{self.status} {self.code}: {self.detail or self.title}"
        if self.errors:
            text += " (" + "; ".join(f"{e.field}: {e.message}" for e in self.errors) + ")"
        where = f"{self.method} {self.path}" if self.method and self.path else None
        extras = [x for x in (where, f"request id {self.request_id}" if self.request_id else None) if x]
        if extras:
            text += " [" + ", ".join(extras) + "]"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, request_id={self.request_id!r})"


class BadRequestError(ApiError):
    """400: ``validation_failed`` (see ``errors``), ``account_selection_required``, ``idempotency_key_invalid``..."""


class AuthenticationError(ApiError):
    """401: ``invalid_token`` on API calls, ``invalid_client`` from the token exchange."""


class PermissionDeniedError(ApiError):
    """403: ``insufficient_scope`` or ``account_not_allowed``."""


class NotFoundError(ApiError):
    """404: ``not_found`` (missing, or another tenant's)."""


class ConflictError(ApiError):
    """409: a state conflict (``shipment_not_active``...) or ``idempotency_request_in_progress``."""


class UnprocessableEntityError(ApiError):
    """422: ``idempotency_key_reused`` (the same key with a different request)."""


class RateLimitError(ApiError):
    """429 ``rate_limited``, once the client's own retries are spent; ``retry_after`` in seconds."""

    retry_after: Optional[float] = None


class InternalServerError(ApiError):
    """500 and other 5xx answers (``error_id`` identifies it for support)."""


class ServiceUnavailableError(InternalServerError):
    """503, once the client's own retries are spent."""


_BY_STATUS: Dict[int, Type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_class(status: int) -> Type[ApiError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return InternalServerError if status >= 500 else ApiError


class ApiConnectionError(ColdchainError):
    """The request did not get an answer (connection refused or reset, DNS, TLS...)."""

    def __init__(self, message: str, *, method: Optional[str] = None, path: Optional[str] = None) -> None:
        self.method = method
        self.path = path
        super().__init__(f"{message} [{method} {path}]" if method and path else message)


class ApiTimeoutError(ApiConnectionError):
    """No answer within the configured timeout."""


class DownloadError(ColdchainError):
    """A download ended early or its bytes do not match the ``ETag`` (SHA-256) the service sent."""
