"""Building blocks the generated resource classes use: the operation record, pages, downloads."""
from __future__ import annotations

import os
from typing import IO, Any, Callable, Dict, Generic, Iterator, List, NamedTuple, Optional, Protocol, Tuple, TypeVar, Union

T = TypeVar("T")

#: Where a download goes: a file path, or a writable binary stream (opened file, ``io.BytesIO``, socket file...).
Destination = Union[str, os.PathLike, IO[bytes]]


class ResponseInfo(NamedTuple):
    """Status and headers of a successful response: ``result.last_response`` (or ``response_of(result)``)."""

    status: int
    headers: Dict[str, str]
    #: ``X-Request-ID``.
    request_id: Optional[str]
    #: ``Idempotent-Replayed: true``: a create answered from the stored first response.
    idempotent_replayed: bool
    #: The ``Idempotency-Key`` a create was sent with (generated unless given).
    idempotency_key: Optional[str] = None
    #: ``RateLimit`` (IETF draft), e.g. ``"per-credential";r=118;t=42``.
    rate_limit: Optional[str] = None
    #: ``RateLimit-Policy``, e.g. ``"per-credential";q=120;w=60``.
    rate_limit_policy: Optional[str] = None
    #: Requests left in the window (``r=`` of ``RateLimit``).
    rate_limit_remaining: Optional[int] = None
    #: Seconds until the window resets (``t=`` of ``RateLimit``).
    rate_limit_reset: Optional[int] = None


class Operation(NamedTuple):
    """One operation of the OpenAPI document (see ``OPERATIONS`` in ``_generated``)."""

    id: str
    method: str
    #: Path below the base URL (``/api/public/v1``), with ``{name}`` placeholders.
    path: str
    #: Client attribute of its resource group, e.g. ``devices``.
    resource: str
    #: Method name on the resource group, e.g. ``list_alarms``.
    name: str
    path_params: Tuple[str, ...]
    query_params: Tuple[str, ...]
    #: The operation takes ``X-Service-Account-ID`` (the client sends it when an account is chosen).
    account_header: bool
    #: The operation creates a record and takes an ``Idempotency-Key``.
    idempotency_key: bool
    #: ``"json"``, ``"form"`` or None.
    body: Optional[str]
    #: ``"json"``, ``"page"``, ``"empty"``, ``"binary"``, ``"token"`` or ``"any"``.
    response: str
    scopes: Tuple[str, ...]
    #: Needs a bearer token (every operation except the token exchange, the index and the schema).
    authenticated: bool


class Page(Generic[T]):
    """One page of a list: ``data`` plus the absolute URL of the next page (``links.next``).

    ``for record in page`` walks this page only; ``page.auto_paging_iter()`` walks every record of
    every following page too, requesting each page only when the previous one is used up.
    """

    __slots__ = ("data", "next_url", "_fetch_next", "last_response")

    def __init__(self, data: List[T], next_url: Optional[str], fetch_next: Callable[[str], "Page[T]"]) -> None:
        self.data: List[T] = data
        self.next_url: Optional[str] = next_url
        self._fetch_next = fetch_next
        #: The response of this page (request id, rate limit, status).
        self.last_response: Optional[ResponseInfo] = None

    @property
    def has_more(self) -> bool:
        return self.next_url is not None

    def next_page(self) -> Optional["Page[T]"]:
        """The following page, or None on the last one."""
        return self._fetch_next(self.next_url) if self.next_url else None

    def auto_paging_iter(self) -> Iterator[T]:
        page: Optional[Page[T]] = self
        while page is not None:
            for record in page.data:
                yield record
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int) -> T:
        return self.data[index]

    def __repr__(self) -> str:
        return f"<Page of {len(self.data)} record(s), has_more={self.has_more}>"


class DownloadResult(NamedTuple):
    """What a streamed download wrote."""

    #: The file written, when the destination was a path.
    path: Optional[str]
    bytes_written: int
    content_type: Optional[str]
    #: File name from ``Content-Disposition``.
    filename: Optional[str]
    #: SHA-256 (hex) of the bytes written, checked against the response's ``ETag``.
    sha256: str
    request_id: Optional[str]
    #: The response (status, request id, rate limit headers).
    last_response: Optional[ResponseInfo] = None


class Caller(Protocol):
    """What the generated resource groups call on the client (``ColdchainClient`` is one)."""

    def _json(self, op: Operation, **kwargs: Any) -> Any: ...
    def _empty(self, op: Operation, **kwargs: Any) -> None: ...
    def _any(self, op: Operation, **kwargs: Any) -> Any: ...
    def _page(self, op: Operation, **kwargs: Any) -> "Page[Any]": ...
    def _iter(self, op: Operation, **kwargs: Any) -> Iterator[Any]: ...
    def _download(self, op: Operation, destination: Destination, **kwargs: Any) -> "DownloadResult": ...
    def _token(self, op: Operation, *, timeout: Optional[float] = None, **_: Any) -> Any: ...


class Resource:
    """Base of the generated resource groups; each method calls back into the client."""

    def __init__(self, client: Caller) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def _drop_none(values: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    return {k: v for k, v in (values or {}).items() if v is not None}
