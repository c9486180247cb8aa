"""The HTTP client: token handling, account selection, retries, errors, paging and downloads."""
from __future__ import annotations

import base64
import copy
import hashlib
import http.client
import json
import logging
import os
import platform
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Union

from . import errors
from ._base import Destination, DownloadResult, Operation, Page, ResponseInfo, _drop_none
from ._generated import BASE_PATH, OPERATIONS, GeneratedResources, TokenResponse
from ._version import __version__

__all__ = ["ColdchainClient", "ResponseInfo", "ApiObject", "ApiList", "response_of"]

logger = logging.getLogger("coldchain_client")

#: Answers saying the request was not carried out: retried for every request (clients/README.md).
_RETRY_ALWAYS = (429, 503)
#: A gateway's answers: the request may have reached the service, so only what is safe to repeat is retried.
_RETRY_IF_REPEATABLE = (502, 504)
_IDEMPOTENT_METHODS = ("GET", "HEAD", "PUT", "DELETE", "OPTIONS")
_CHUNK = 64 * 1024
_UNSET: Any = object()


class ApiObject(Dict[str, Any]):
    """A JSON object the service answered: a plain ``dict`` with the response under ``last_response``."""

    last_response: Optional[ResponseInfo] = None


class ApiList(List[Any]):
    """A JSON array the service answered, with the response under ``last_response``."""

    last_response: Optional[ResponseInfo] = None


def response_of(result: Any) -> ResponseInfo:
    """The response a result came from (request id, ``Idempotent-Replayed``, rate limit, status).

    Works on what every method returns: a record (``dict``), a :class:`Page`, a :class:`DownloadResult`.
    """
    info = getattr(result, "last_response", None)
    if not isinstance(info, ResponseInfo):
        raise TypeError(f"{type(result).__name__} does not carry a response")
    return info


class _Secret:
    """Holds the client secret out of ``vars(client)``, ``repr`` and pickles of the client."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<client secret [redacted]>"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("the client secret is not picklable")


class _Token:
    __slots__ = ("value", "expires_at", "refresh_at", "scope")

    def __init__(self, value: str, expires_at: float, refresh_at: float, scope: str) -> None:
        self.value = value
        self.expires_at = expires_at
        self.refresh_at = refresh_at
        self.scope = scope

    def __repr__(self) -> str:
        return "<access token [redacted]>"


class _TokenCache:
    """Shared by a client and the clients derived from it (``with_account``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.token: Optional[_Token] = None
        self.fetches = 0

    def __repr__(self) -> str:
        return "<token cache>"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one could send the bearer token elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class _Raw(NamedTuple):
    status: int
    headers: Dict[str, str]
    body: bytes
    info: Optional[ResponseInfo] = None


class ColdchainClient(GeneratedResources):
    """Client of the Cold Chain Telemetry Public API v1.

    >>> client = ColdchainClient("https://api.example.com/api/public/v1", client_id, client_secret)
    >>> for device in client.devices.iter_all():
    ...     print(device["serial_number"])

    ``base_url`` may be given with or without the ``/api/public/v1`` prefix. The access token is
    fetched on first use, cached until shortly before it expires, and fetched again once when the
    service answers 401. ``account_id`` selects the account for credentials assigned to several;
    every method also takes ``account_id=`` for one call, and :meth:`with_account` derives a client
    bound to another account that shares the token.

    Retries: 429, 503 and connection errors are retried up to ``max_retries`` times with
    exponential backoff and full jitter, honouring ``Retry-After``, and never beyond
    ``max_retry_time`` seconds in total for one call. Connection errors are retried only where a
    repeat is safe: GET/PUT/DELETE, creates (they carry an ``Idempotency-Key``, reused on every
    retry) and requests that never reached the service.
    """

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        scopes: Optional[Sequence[str]] = None,
        account_id: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_time: float = 60.0,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        token_refresh_margin: float = 60.0,
        user_agent: Optional[str] = None,
    ) -> None:
        if not base_url or not re.match(r"^https?://", base_url):
            raise ValueError("base_url must be an http:// or https:// URL")
        if not client_id or not client_secret:
            raise ValueError("client_id and client_secret are required")
        if max_retries < 0 or max_retry_time < 0 or timeout <= 0:
            raise ValueError("timeout must be positive; max_retries and max_retry_time not negative")
        base = base_url.rstrip("/")
        if not base.endswith(BASE_PATH):
            base += BASE_PATH
        self.base_url = base
        self.client_id = client_id
        # Not a plain attribute: vars(client) and repr show only "<client secret [redacted]>".
        self._secret = _Secret(client_secret)
        self.scopes: Optional[List[str]] = list(scopes) if scopes else None
        self.account_id = account_id
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.max_retry_time = float(max_retry_time)
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.token_refresh_margin = float(token_refresh_margin)
        #: The SDK's own product token first, yours appended (as in every client of this family).
        self.user_agent = f"coldchain-client-python/{__version__} Python/{platform.python_version()}" + (f" {user_agent}" if user_agent else "")
        self._user_agent_option = user_agent
        self._tokens = _TokenCache()
        self._local = threading.local()
        self._opener = urllib.request.build_opener(_NoRedirect())
        #: Sleep function of the retry loop (tests replace it).
        self._sleep: Callable[[float], None] = time.sleep
        self._bind_resources()

    # ------------------------------------------------------------------ public helpers

    def with_account(self, account_id: Optional[str]) -> "ColdchainClient":
        """A client bound to another account, sharing this one's settings and cached token."""
        other = copy.copy(self)
        other.account_id = account_id
        other._local = threading.local()
        other._bind_resources()
        return other

    @property
    def last_response(self) -> Optional[ResponseInfo]:
        """Status, headers and request id of this thread's last successful call.

        Prefer ``result.last_response`` (or :func:`response_of`): every result carries its own response.
        """
        return getattr(self._local, "response", None)

    def __repr__(self) -> str:
        return f"ColdchainClient(base_url={self.base_url!r}, client_id={self.client_id!r}, account_id={self.account_id!r})"

    __str__ = __repr__

    # ------------------------------------------------------------------ redaction

    def _redact(self, text: str) -> str:
        """Removes the secret and any token from text that may reach a message or a log line."""
        secret = self._secret.reveal()
        secrets = [secret, urllib.parse.quote_plus(secret)]
        token = self._tokens.token
        if token is not None:
            secrets.append(token.value)
        for secret in secrets:
            if secret and len(secret) >= 4:
                text = text.replace(secret, "[redacted]")
        return re.sub(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+", r"\1[redacted]", text)

    # ------------------------------------------------------------------ token

    def _access_token(self) -> str:
        with self._tokens.lock:
            token = self._tokens.token
            if token is None or time.monotonic() >= token.refresh_at:
                token = self._exchange(timeout=None)
            return token.value

    def _invalidate(self, value: str) -> None:
        with self._tokens.lock:
            if self._tokens.token is not None and self._tokens.token.value == value:
                self._tokens.token = None

    def _exchange(self, timeout: Optional[float]) -> _Token:
        """The token exchange itself (called with the cache lock held, or by ``oauth.token()``)."""
        form = {"grant_type": "client_credentials"}
        if self.scopes:
            form["scope"] = " ".join(self.scopes)
        basic = f"{urllib.parse.quote_plus(self.client_id)}:{urllib.parse.quote_plus(self._secret.reveal())}"
        headers = {
            "Authorization": "Basic " + base64.b64encode(basic.encode("utf-8")).decode("ascii"),
            "Content-Type": "application/x-www-form-urlencoded",
        }
        op = OPERATIONS["TokenController_token"]
        raw = self._send(op, self._url(op, None, None), urllib.parse.urlencode(form).encode("ascii"), headers, None, timeout, token_exchange=True)
        body = json.loads(raw.body.decode("utf-8"))
        lifetime = float(body.get("expires_in") or 3600)
        margin = min(self.token_refresh_margin, lifetime / 2)
        now = time.monotonic()
        token = _Token(str(body["access_token"]), now + lifetime, now + lifetime - margin, str(body.get("scope", "")))
        self._tokens.token = token
        self._tokens.fetches += 1
        logger.debug("access token obtained (expires in %ss)", int(lifetime))
        return token

    def _token(self, op: Operation, *, timeout: Optional[float] = None, **_: Any) -> TokenResponse:
        with self._tokens.lock:
            token = self._exchange(timeout)
        remaining = max(0, int(round(token.expires_at - time.monotonic())))
        return {"access_token": token.value, "token_type": "Bearer", "expires_in": remaining, "scope": token.scope}

    # ------------------------------------------------------------------ request building

    def _url(self, op: Operation, path: Optional[Mapping[str, Any]], query: Optional[Mapping[str, Any]]) -> str:
        values = dict(path or {})

        def fill(match: "re.Match[str]") -> str:
            name = match.group(1)
            value = values.get(name)
            if value is None or value == "":
                raise ValueError(f"{op.resource}.{op.name}: {name} is required")
            return urllib.parse.quote(str(value), safe="")

        url = self.base_url + re.sub(r"\{([^}]+)\}", fill, op.path)
        params = _query_pairs(_drop_none(dict(query or {})))
        return f"{url}?{urllib.parse.urlencode(params)}" if params else url

    def _rebase(self, url: str) -> str:
        """``links.next`` is absolute; a different origin (proxy, PUBLIC_BASE_URL) is replaced by ours."""
        ours = urllib.parse.urlsplit(self.base_url)
        theirs = urllib.parse.urlsplit(urllib.parse.urljoin(self.base_url + "/", url))
        if (theirs.scheme, theirs.netloc) == (ours.scheme, ours.netloc):
            return theirs.geturl()
        return urllib.parse.urlunsplit((ours.scheme, ours.netloc, theirs.path, theirs.query, ""))

    def _headers(self, op: Operation, account_id: Any, idempotency_key: Optional[str], body: Any) -> Dict[str, str]:
        headers: Dict[str, str] = {}
        account = self.account_id if account_id is _UNSET or account_id is None else account_id
        if op.account_header and account:
            headers["X-Service-Account-ID"] = str(account)
        if op.idempotency_key:
            key = idempotency_key or f"coldchain-py-{uuid.uuid4()}"
            if not 8 <= len(key) <= 128:
                raise ValueError("idempotency_key must be 8 to 128 characters")
            headers["Idempotency-Key"] = key
        if body is not None:
            headers["Content-Type"] = "application/json"
        return headers

    # ------------------------------------------------------------------ transport

    def _send(
        self,
        op: Operation,
        url: str,
        data: Optional[bytes],
        headers: Dict[str, str],
        account_id: Any,
        timeout: Optional[float],
        *,
        stream: bool = False,
        token_exchange: bool = False,
    ) -> Any:
        """One call with retries and the 401 refresh; returns ``_Raw`` (or the open response when ``stream``)."""
        started = time.monotonic()
        retries = 0
        refreshed = False
        display_path = urllib.parse.urlsplit(url).path
        while True:
            request_headers = {
                "User-Agent": self.user_agent,
                "Accept": "*/*" if op.response in ("binary", "any") else "application/json",
                **headers,
            }
            token_value: Optional[str] = None
            if op.authenticated and not token_exchange:
                token_value = self._access_token()
                request_headers["Authorization"] = f"Bearer {token_value}"
            request = urllib.request.Request(url, data=data, headers=request_headers, method=op.method)
            failure: Union[errors.ApiError, errors.ApiConnectionError]
            wait: Optional[float] = None
            try:
                response = self._opener.open(request, timeout=timeout or self.timeout)
                if stream:
                    body = b""
                else:
                    try:
                        body = response.read()
                    finally:
                        response.close()
            except urllib.error.HTTPError as error:
                raw = _Raw(error.code, _header_dict(error.headers), _read_quietly(error))
                error.close()
                logger.debug("%s %s -> %s (request id %s)", op.method, display_path, raw.status, raw.headers.get("x-request-id"))
                if raw.status == 401 and token_value is not None and not refreshed:
                    refreshed = True
                    self._invalidate(token_value)
                    continue
                failure = self._api_error(raw, op.method, display_path, token_exchange)
                repeatable = op.method in _IDEMPOTENT_METHODS or "Idempotency-Key" in headers or token_exchange
                retryable = (
                    raw.status in _RETRY_ALWAYS
                    or (raw.status in _RETRY_IF_REPEATABLE and repeatable)
                    or (raw.status == 409 and failure.code == "idempotency_request_in_progress")
                )
                if not retryable:
                    raise failure from None
                wait = _retry_after(raw.headers.get("retry-after"))
            except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
                reason = getattr(error, "reason", error)
                timed_out = isinstance(reason, (socket.timeout, TimeoutError)) or "timed out" in str(reason)
                kind = errors.ApiTimeoutError if timed_out else errors.ApiConnectionError
                message = "request timed out" if timed_out else f"connection failed: {self._redact(str(reason))}"
                failure = kind(message, method=op.method, path=display_path)
                never_sent = isinstance(reason, (ConnectionRefusedError, socket.gaierror))
                safe = op.method in _IDEMPOTENT_METHODS or "Idempotency-Key" in headers or never_sent or token_exchange
                logger.debug("%s %s failed: %s", op.method, display_path, message)
                if not safe:
                    raise failure from None
            else:
                info = _response_info(response.status, _header_dict(response.headers), headers.get("Idempotency-Key"))
                self._local.response = info
                logger.debug("%s %s -> %s (request id %s)", op.method, display_path, info.status, info.request_id)
                return response if stream else _Raw(response.status, info.headers, body, info)

            # a retryable failure
            delay = self._backoff(retries) if wait is None else wait
            elapsed = time.monotonic() - started
            if retries >= self.max_retries or elapsed + delay > self.max_retry_time:
                if isinstance(failure, errors.RateLimitError):
                    failure.retry_after = wait
                raise failure
            retries += 1
            logger.info("%s %s: %s; retry %d/%d in %.2fs", op.method, display_path, _short(failure), retries, self.max_retries, delay)
            self._sleep(delay)

    def _backoff(self, retries: int) -> float:
        """Exponential backoff with full jitter."""
        return random.uniform(0, min(self.backoff_max, self.backoff_base * (2**retries)))

    def _api_error(self, raw: _Raw, method: str, path: str, token_exchange: bool) -> errors.ApiError:
        body: Any = None
        content_type = raw.headers.get("content-type", "")
        if "json" in content_type:
            try:
                body = json.loads(raw.body.decode("utf-8"))
            except ValueError:
                body = None
        request_id = raw.headers.get("x-request-id")
        cls = errors.error_class(raw.status)
        common: Dict[str, Any] = dict(request_id=request_id, method=method, path=path, headers=raw.headers)
        if isinstance(body, dict) and "error" in body and "code" not in body:
            # RFC 6749 §5.2 answer of the token exchange
            code = str(body.get("error"))
            detail = body.get("error_description")
            return cls(raw.status, code, code.replace("_", " ").capitalize(), self._redact(str(detail)) if detail else None, body=body, **common)
        if isinstance(body, dict):
            detail = body.get("detail")
            return cls(
                raw.status,
                str(body.get("code") or "unknown_error"),
                self._redact(str(body.get("title") or http.client.responses.get(raw.status, "Error"))),
                self._redact(str(detail)) if detail is not None else None,
                errors=body.get("errors") if isinstance(body.get("errors"), list) else None,
                type=body.get("type"),
                instance=body.get("instance"),
                error_id=body.get("error_id"),
                body=body,
                **common,
            )
        text = raw.body[:200].decode("utf-8", "replace").strip()
        return cls(raw.status, "http_error", http.client.responses.get(raw.status, "Error"), self._redact(text) or None, **common)

    # ------------------------------------------------------------------ response kinds (called by the generated methods)

    def _call(
        self,
        op: Operation,
        path: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        account_id: Any = _UNSET,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
        url: Optional[str] = None,
        stream: bool = False,
    ) -> Any:
        data = json.dumps(body, default=_json_default, separators=(",", ":")).encode("utf-8") if body is not None else None
        headers = self._headers(op, account_id, idempotency_key, body)
        target = self._rebase(url) if url else self._url(op, path, query)
        return self._send(op, target, data, headers, account_id, timeout, stream=stream)

    def _json(self, op: Operation, **kwargs: Any) -> Any:
        raw = self._call(op, **kwargs)
        return _with_response(json.loads(raw.body.decode("utf-8")), raw.info) if raw.body else None

    def _empty(self, op: Operation, **kwargs: Any) -> None:
        self._call(op, **kwargs)
        return None

    def _any(self, op: Operation, **kwargs: Any) -> Any:
        raw = self._call(op, **kwargs)
        if "json" in raw.headers.get("content-type", ""):
            return _with_response(json.loads(raw.body.decode("utf-8")), raw.info)
        return raw.body.decode("utf-8")

    def _page(self, op: Operation, **kwargs: Any) -> Page[Any]:
        body = self._json(op, **kwargs)
        account_id = kwargs.get("account_id", _UNSET)
        timeout = kwargs.get("timeout")

        def fetch_next(url: str) -> Page[Any]:
            return self._page(op, url=url, account_id=account_id, timeout=timeout)

        links = body.get("links") or {}
        page: Page[Any] = Page(list(body.get("data") or []), links.get("next"), fetch_next)
        page.last_response = getattr(body, "last_response", None)
        return page

    def _iter(self, op: Operation, **kwargs: Any) -> Iterator[Any]:
        """Lazy: the first page is requested when iteration starts."""
        yield from self._page(op, **kwargs).auto_paging_iter()

    def _download(self, op: Operation, destination: Destination, **kwargs: Any) -> DownloadResult:
        response = self._call(op, stream=True, **kwargs)
        request_id = response.headers.get("X-Request-ID")
        expected_length = response.headers.get("Content-Length")
        etag = (response.headers.get("ETag") or "").strip()
        filename = _filename(response.headers.get("Content-Disposition"))
        digest = hashlib.sha256()
        written = 0
        target_path: Optional[str] = None
        partial: Optional[str] = None
        try:
            if isinstance(destination, (str, os.PathLike)):
                target_path = os.fspath(destination)
                partial = f"{target_path}.part"
                sink: Any = open(partial, "wb")
            else:
                sink = destination
            try:
                while True:
                    chunk = response.read(_CHUNK)
                    if not chunk:
                        break
                    sink.write(chunk)
                    digest.update(chunk)
                    written += len(chunk)
            except (socket.timeout, TimeoutError):
                # the socket timeout bounds every read: a body that stalls fails, it never hangs
                raise errors.ApiTimeoutError(f"download stalled after {written} bytes (no data for {_timeout_of(kwargs, self.timeout)} s)", method=op.method, path=urllib.parse.urlsplit(response.url).path) from None
            except (OSError, http.client.HTTPException) as error:
                raise errors.DownloadError(f"download interrupted after {written} bytes: {error}") from None
            finally:
                if partial is not None:
                    sink.close()
            sha256 = digest.hexdigest()
            if expected_length is not None and expected_length.isdigit() and int(expected_length) != written:
                raise errors.DownloadError(f"download ended after {written} of {expected_length} bytes")
            tag = etag[2:] if etag.startswith("W/") else etag
            tag = tag.strip('"')
            if re.fullmatch(r"[0-9a-f]{64}", tag) and tag != sha256:
                raise errors.DownloadError("downloaded bytes do not match the ETag (SHA-256) of the report")
            if partial is not None and target_path is not None:
                os.replace(partial, target_path)
                partial = None
        finally:
            response.close()
            if partial is not None and os.path.exists(partial):
                os.remove(partial)
        info = _response_info(response.status, _header_dict(response.headers), None)
        return DownloadResult(target_path, written, response.headers.get("Content-Type"), filename, sha256, request_id, info)


# ---------------------------------------------------------------------- helpers


def _timeout_of(kwargs: Mapping[str, Any], default: float) -> float:
    return float(kwargs.get("timeout") or default)


def _response_info(status: int, headers: Dict[str, str], idempotency_key: Optional[str]) -> ResponseInfo:
    rate_limit = headers.get("ratelimit")
    remaining = re.search(r"(?:^|;)\s*r=(\d+)", rate_limit or "")
    reset = re.search(r"(?:^|;)\s*t=(\d+)", rate_limit or "")
    return ResponseInfo(
        status,
        headers,
        headers.get("x-request-id"),
        (headers.get("idempotent-replayed") or "").lower() == "true",
        idempotency_key,
        rate_limit,
        headers.get("ratelimit-policy"),
        int(remaining.group(1)) if remaining else None,
        int(reset.group(1)) if reset else None,
    )


def _with_response(value: Any, info: Optional[ResponseInfo]) -> Any:
    """The parsed body as an :class:`ApiObject` / :class:`ApiList` carrying its response."""
    if isinstance(value, dict):
        result: Any = ApiObject(value)
    elif isinstance(value, list):
        result = ApiList(value)
    else:
        return value
    result.last_response = info
    return result


def _query_pairs(values: Mapping[str, Any]) -> List[Any]:
    pairs: List[Any] = []
    for key, value in values.items():
        items: Iterable[Any] = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            pairs.append((key, _query_value(item)))
    return pairs


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return _iso(value)
    return str(value)


def _iso(value: datetime) -> str:
    """ISO 8601 with a zone; a naive datetime is taken as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return _iso(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _header_dict(headers: Any) -> Dict[str, str]:
    return {str(k).lower(): str(v) for k, v in (headers.items() if headers is not None else [])}


def _read_quietly(error: urllib.error.HTTPError) -> bytes:
    try:
        return error.read()
    except Exception:  # noqa: BLE001 - a body we cannot read is an empty one
        return b""


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from ``Retry-After`` (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _filename(disposition: Optional[str]) -> Optional[str]:
    if not disposition:
        return None
    match = re.search(r"filename\*=UTF-8''([^;]+)", disposition, re.I)
    if match:
        return urllib.parse.unquote(match.group(1).strip())
    match = re.search(r'filename="?([^";]+)"?', disposition, re.I)
    return match.group(1) if match else None


def _short(failure: Exception) -> str:
    if isinstance(failure, errors.ApiError):
        return f"{failure.status} {failure.code}"
    return str(failure)
