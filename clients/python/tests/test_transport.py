"""Token caching, retries, errors, paging, downloads and redaction against a local fake server."""
from __future__ import annotations

import base64
import hashlib
import io
import logging
import os
import socket
import tempfile
import threading
import time
import unittest
import urllib.parse
from typing import Dict, List

from _support import FakeService, Recorded, Reply, json_reply, token_reply

from coldchain_client import (
    ApiConnectionError,
    ApiTimeoutError,
    AuthenticationError,
    BadRequestError,
    ColdchainClient,
    ConflictError,
    DownloadError,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
)

SECRET = "s3cr3t-Value-that-must-not-leak"
ACCOUNT = "11111111-1111-4111-8111-111111111111"
OTHER = "22222222-2222-4222-8222-222222222222"
DEVICE = {"id": "d1", "serial_number": "CCT-1"}


def page(records: list, next_url=None) -> Reply:
    return json_reply(200, {"data": records, "links": {"next": next_url}})


class Base(unittest.TestCase):
    replies: Dict[str, List[Reply]]

    def setUp(self) -> None:
        self.replies = {}
        self.tokens = 0
        self.service = FakeService(self.route)
        self.addCleanup(self.service.close)
        self.sleeps: List[float] = []

    def route(self, request: Recorded) -> Reply:
        path = urllib.parse.urlsplit(request.path).path
        if path.endswith("/oauth/token/") and "token" not in self.replies:
            self.tokens += 1
            return token_reply(f"tok-{self.tokens}")
        key = path.replace("/api/public/v1", "", 1) if path.startswith("/api/public/v1") else path
        queue = self.replies.get("token" if path.endswith("/oauth/token/") else key)
        if not queue:
            return json_reply(404, {"type": "urn:x", "title": "Not found", "status": 404, "code": "not_found", "detail": "no route " + key})
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def client(self, **options) -> ColdchainClient:
        options.setdefault("backoff_base", 0.01)
        client = ColdchainClient(self.service.url, "client-1", SECRET, **options)
        client._sleep = self.sleeps.append  # no real waiting in unit tests
        return client


class TokenTests(Base):
    def test_fetches_the_token_on_first_use_and_caches_it(self) -> None:
        self.replies["/devices/d1/"] = [json_reply(200, DEVICE)]
        client = self.client(scopes=["devices:read", "telemetry:read"])
        self.assertEqual(self.service.requests, [])
        client.devices.get("d1")
        client.devices.get("d1")
        self.assertEqual(len(self.service.token_requests()), 1)
        token_request = self.service.token_requests()[0]
        self.assertEqual(urllib.parse.parse_qs(token_request.body.decode()), {"grant_type": ["client_credentials"], "scope": ["devices:read telemetry:read"]})
        basic = base64.b64decode(token_request.headers["authorization"].split(" ")[1]).decode()
        self.assertEqual(basic, f"client-1:{SECRET}")
        self.assertEqual([r.headers["authorization"] for r in self.service.api_requests()], ["Bearer tok-1", "Bearer tok-1"])

    def test_fetches_a_new_token_shortly_before_expiry(self) -> None:
        self.replies["/devices/d1/"] = [json_reply(200, DEVICE)]
        self.replies["token"] = [token_reply("short", expires_in=1), token_reply("next", expires_in=3600)]
        client = self.client()
        client.devices.get("d1")
        time.sleep(0.6)  # the margin is min(60 s, half the lifetime): 0.5 s here
        client.devices.get("d1")
        self.assertEqual([r.headers["authorization"] for r in self.service.api_requests()], ["Bearer short", "Bearer next"])

    def test_refreshes_once_on_401_then_gives_up(self) -> None:
        unauthorized = json_reply(401, {"type": "urn:x", "title": "Unauthorized", "status": 401, "code": "invalid_token"})
        self.replies["/devices/d1/"] = [unauthorized, json_reply(200, DEVICE)]
        client = self.client()
        self.assertEqual(client.devices.get("d1"), DEVICE)
        self.assertEqual([r.headers["authorization"] for r in self.service.api_requests()], ["Bearer tok-1", "Bearer tok-2"])
        self.replies["/devices/d1/"] = [unauthorized]
        with self.assertRaises(AuthenticationError) as caught:
            client.devices.get("d1")
        self.assertEqual(caught.exception.code, "invalid_token")
        self.assertEqual(len(self.service.token_requests()), 3)

    def test_oauth_errors_are_typed_and_never_show_the_secret(self) -> None:
        self.replies["token"] = [json_reply(401, {"error": "invalid_client", "error_description": f"Unknown client or bad secret {SECRET}"})]
        client = self.client()
        with self.assertRaises(AuthenticationError) as caught:
            client.devices.get("d1")
        error = caught.exception
        self.assertEqual((error.status, error.code), (401, "invalid_client"))
        for text in (str(error), repr(error), repr(client), str(client), repr(vars(client).get("_tokens"))):
            self.assertNotIn(SECRET, text)
        self.assertIn("[redacted]", str(error))

    def test_concurrent_first_calls_share_one_token(self) -> None:
        self.replies["/devices/d1/"] = [json_reply(200, DEVICE)]
        client = self.client()
        threads = [threading.Thread(target=client.devices.get, args=("d1",)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(self.service.token_requests()), 1)

    def test_oauth_token_method_exchanges_explicitly(self) -> None:
        client = self.client()
        token = client.oauth.token()
        self.assertEqual(token["token_type"], "Bearer")
        self.assertGreater(token["expires_in"], 3000)
        self.replies["/devices/d1/"] = [json_reply(200, DEVICE)]
        client.devices.get("d1")
        self.assertEqual(len(self.service.token_requests()), 1)


class AccountTests(Base):
    def test_sends_the_chosen_account_per_client_per_call_and_via_with_account(self) -> None:
        self.replies["/devices/"] = [page([DEVICE])]
        self.replies["/accounts/"] = [page([])]
        client = self.client(account_id=ACCOUNT)
        client.devices.list()
        client.devices.list(account_id=OTHER)
        other = client.with_account(OTHER)
        other.devices.list()
        client.devices.list()
        self.client().devices.list()
        client.accounts.list()  # the accounts operations take no X-Service-Account-ID
        sent = [r.headers.get("x-service-account-id") for r in self.service.api_requests()]
        self.assertEqual(sent, [ACCOUNT, OTHER, OTHER, ACCOUNT, None, None])
        self.assertEqual(len(self.service.token_requests()), 2)  # with_account shares the token; the last client has its own


class RetryTests(Base):
    def test_retries_429_honouring_retry_after(self) -> None:
        limited = json_reply(429, {"type": "urn:x", "title": "Too many requests", "status": 429, "code": "rate_limited"}, {"Retry-After": "2"})
        self.replies["/devices/d1/"] = [limited, json_reply(200, DEVICE)]
        self.assertEqual(self.client().devices.get("d1"), DEVICE)
        self.assertEqual(self.sleeps, [2.0])

    def test_retries_503_with_jittered_exponential_backoff(self) -> None:
        busy = json_reply(503, {"type": "urn:x", "title": "Service unavailable", "status": 503, "code": "service_unavailable"})
        self.replies["/devices/d1/"] = [busy, busy, busy, json_reply(200, DEVICE)]
        self.assertEqual(self.client(backoff_base=1, backoff_max=3).devices.get("d1"), DEVICE)
        self.assertEqual(len(self.sleeps), 3)
        for attempt, delay in enumerate(self.sleeps):
            self.assertLessEqual(delay, min(3, 2**attempt))

    def test_retries_are_bounded_in_count(self) -> None:
        busy = json_reply(503, {"type": "urn:x", "title": "Service unavailable", "status": 503, "code": "service_unavailable"})
        self.replies["/devices/d1/"] = [busy]
        with self.assertRaises(ServiceUnavailableError):
            self.client(max_retries=2).devices.get("d1")
        self.assertEqual(len(self.service.api_requests()), 3)

    def test_retries_are_bounded_in_time(self) -> None:
        limited = json_reply(429, {"type": "urn:x", "title": "Too many", "status": 429, "code": "rate_limited"}, {"Retry-After": "120"})
        self.replies["/devices/d1/"] = [limited]
        with self.assertRaises(RateLimitError) as caught:
            self.client(max_retry_time=30).devices.get("d1")
        self.assertEqual(caught.exception.retry_after, 120)
        self.assertEqual(self.sleeps, [])
        self.assertEqual(len(self.service.api_requests()), 1)

    def test_a_create_reuses_its_idempotency_key_on_retries(self) -> None:
        busy = json_reply(503, {"type": "urn:x", "title": "Busy", "status": 503, "code": "service_unavailable"}, {"Retry-After": "0"})
        self.replies["/carriers/"] = [busy, busy, json_reply(201, {"id": "c1"})]
        client = self.client()
        self.assertEqual(client.carriers.create({"name": "Sea Co"}), {"id": "c1"})
        keys = {r.headers["idempotency-key"] for r in self.service.api_requests()}
        self.assertEqual(len(keys), 1)
        self.assertTrue(8 <= len(keys.pop()) <= 128)
        self.replies["/carriers/"] = [json_reply(201, {"id": "c1"})]
        client.carriers.create({"name": "Sea Co"}, idempotency_key="my-own-key-1")
        self.assertEqual(self.service.api_requests()[-1].headers["idempotency-key"], "my-own-key-1")
        with self.assertRaises(ValueError):
            client.carriers.create({"name": "x"}, idempotency_key="short")

    def test_does_not_retry_other_client_errors(self) -> None:
        self.replies["/shipments/1/complete/"] = [json_reply(409, {"type": "urn:x", "title": "Conflict", "status": 409, "code": "shipment_not_active", "detail": "Completed already."})]
        with self.assertRaises(ConflictError) as caught:
            self.client().shipments.complete(1)
        self.assertEqual(caught.exception.code, "shipment_not_active")
        self.assertEqual(len(self.service.api_requests()), 1)

    def test_retries_a_refused_connection_then_raises_a_connection_error(self) -> None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()  # nothing listens there now
        client = ColdchainClient(f"http://127.0.0.1:{port}", "client-1", SECRET, max_retries=2, backoff_base=0.01)
        sleeps: List[float] = []
        client._sleep = sleeps.append
        with self.assertRaises(ApiConnectionError) as caught:
            client.devices.list()
        self.assertEqual(len(sleeps), 2)
        self.assertNotIn(SECRET, str(caught.exception))

    def test_a_slow_answer_is_a_timeout(self) -> None:
        def slow(request: Recorded) -> Reply:
            if request.path.endswith("/oauth/token/"):
                return token_reply()
            time.sleep(0.5)
            return json_reply(200, DEVICE)

        self.service.route = slow
        client = self.client(timeout=0.1, max_retries=1)
        with self.assertRaises(ApiTimeoutError):
            client.devices.get("d1")
        self.assertEqual(len(self.sleeps), 1)  # a GET is retried once
        self.assertEqual(client.devices.get("d1", timeout=2), DEVICE)  # per-call timeout


class ErrorTests(Base):
    def test_validation_errors_carry_every_field_and_the_request_id(self) -> None:
        problem = {
            "type": "urn:coldchain:problem:validation_failed",
            "title": "Validation failed",
            "status": 400,
            "detail": "The request body is invalid.",
            "code": "validation_failed",
            "errors": [{"field": "name", "code": "isNotEmpty", "message": "name should not be empty"}],
        }
        self.replies["/carriers/"] = [json_reply(400, problem, {"X-Request-ID": "req-abc"})]
        with self.assertRaises(BadRequestError) as caught:
            self.client().carriers.create({"name": ""})
        error = caught.exception
        self.assertEqual((error.status, error.code, error.title, error.detail, error.request_id), (400, "validation_failed", "Validation failed", "The request body is invalid.", "req-abc"))
        self.assertEqual(error.errors[0].field, "name")
        self.assertEqual(error.errors[0].message, "name should not be empty")
        self.assertIn("name: name should not be empty", str(error))
        self.assertIn("req-abc", str(error))
        self.assertNotIn("tok-1", str(error))

    def test_not_found_is_typed(self) -> None:
        with self.assertRaises(NotFoundError) as caught:
            self.client().devices.get("missing")
        self.assertEqual(caught.exception.status, 404)

    def test_path_parameters_are_escaped_and_required(self) -> None:
        with self.assertRaises(NotFoundError):
            self.client().devices.get("a/../b")
        self.assertEqual(self.service.api_requests()[-1].path, "/api/public/v1/devices/a%2F..%2Fb/")
        with self.assertRaises(ValueError):
            self.client().devices.get("")

    def test_the_secret_is_not_an_instance_attribute(self) -> None:
        client = ColdchainClient("http://127.0.0.1:9", "client-id", "the-client-secret-value")
        self.assertNotIn("the-client-secret-value", repr(vars(client)))
        self.assertNotIn("the-client-secret-value", repr(vars(client.with_account("a1"))))

    def test_a_custom_user_agent_is_appended_to_the_sdks_own(self) -> None:
        client = ColdchainClient("http://127.0.0.1:9", "client-id", "secret", user_agent="my-app/2.0")
        self.assertRegex(client.user_agent, r"^coldchain-client-python/\S+ Python/\S+ my-app/2\.0$")
        self.assertEqual(client.with_account("a1").user_agent, client.user_agent)

    def test_nothing_secret_in_log_lines(self) -> None:
        limited = json_reply(429, {"type": "urn:x", "title": "Too many", "status": 429, "code": "rate_limited"}, {"Retry-After": "0"})
        self.replies["/devices/d1/"] = [limited, json_reply(200, DEVICE)]
        with self.assertLogs("coldchain_client", level="DEBUG") as logs:
            self.client().devices.get("d1")
        text = "\n".join(logs.output)
        self.assertIn("429", text)
        self.assertNotIn(SECRET, text)
        self.assertNotIn("tok-1", text)


class PagingTests(Base):
    def test_follows_links_next_across_pages_lazily(self) -> None:
        # links.next names another origin (PUBLIC_BASE_URL behind a proxy): the client keeps its own
        self.replies["/devices/"] = [
            page([{"id": "1"}, {"id": "2"}], "https://public.example.com/api/public/v1/devices/?limit=2&cursor=c2"),
            page([{"id": "3"}, {"id": "4"}], "https://public.example.com/api/public/v1/devices/?limit=2&cursor=c3"),
            page([{"id": "5"}]),
        ]
        client = self.client()
        iterator = client.devices.iter_all(limit=2)
        self.assertEqual(self.service.api_requests(), [])
        self.assertEqual([d["id"] for d in iterator], ["1", "2", "3", "4", "5"])
        self.assertEqual([r.path for r in self.service.api_requests()], [
            "/api/public/v1/devices/?limit=2",
            "/api/public/v1/devices/?limit=2&cursor=c2",
            "/api/public/v1/devices/?limit=2&cursor=c3",
        ])

    def test_a_page_knows_whether_more_follow(self) -> None:
        self.replies["/alarms/"] = [page([{"id": "a"}], "/api/public/v1/alarms/?cursor=x"), page([])]
        first = self.client().alarms.list(resolved=False, severity="CRITICAL")
        self.assertTrue(first.has_more)
        self.assertEqual(len(first), 1)
        self.assertIn("resolved=false", self.service.api_requests()[0].path)
        second = first.next_page()
        assert second is not None
        self.assertFalse(second.has_more)
        self.assertIsNone(second.next_page())


class DownloadTests(Base):
    CONTENT = b"%PDF-1.7\n" + os.urandom(200_000)

    def reply(self, etag=None) -> Reply:
        sha = hashlib.sha256(self.CONTENT).hexdigest()
        return 200, {
            "Content-Type": "application/pdf",
            "Content-Disposition": 'attachment; filename="shipment-7-report.pdf"',
            "ETag": etag or f'"{sha}"',
            "X-Request-ID": "req-dl",
        }, self.CONTENT

    def test_streams_to_a_path(self) -> None:
        self.replies["/reports/r1/download/"] = [self.reply()]
        with tempfile.TemporaryDirectory() as directory:
            target = os.path.join(directory, "report.pdf")
            result = self.client().reports.download("r1", target)
            with open(target, "rb") as handle:
                self.assertEqual(handle.read(), self.CONTENT)
            self.assertEqual(os.listdir(directory), ["report.pdf"])
        self.assertEqual(result.bytes_written, len(self.CONTENT))
        self.assertEqual(result.filename, "shipment-7-report.pdf")
        self.assertEqual(result.content_type, "application/pdf")
        self.assertEqual(result.sha256, hashlib.sha256(self.CONTENT).hexdigest())
        self.assertEqual(result.request_id, "req-dl")
        self.assertEqual(self.service.api_requests()[0].headers["accept"], "*/*")

    def test_streams_to_a_binary_stream(self) -> None:
        self.replies["/reports/r1/download/"] = [self.reply()]
        sink = io.BytesIO()
        result = self.client().reports.download("r1", sink)
        self.assertEqual(sink.getvalue(), self.CONTENT)
        self.assertIsNone(result.path)

    def test_a_mismatching_etag_fails_and_leaves_no_file(self) -> None:
        self.replies["/reports/r1/download/"] = [self.reply(etag='"' + "0" * 64 + '"')]
        with tempfile.TemporaryDirectory() as directory:
            with self.assertRaises(DownloadError):
                self.client().reports.download("r1", os.path.join(directory, "report.pdf"))
            self.assertEqual(os.listdir(directory), [])


if __name__ == "__main__":
    logging.basicConfig()
    unittest.main()
