"""Test helpers: the package on sys.path without installing it, and a scripted local HTTP server."""
from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)

#: clients/openapi.json, when the tests run inside the repository.
OPENAPI = os.path.join(os.path.dirname(PACKAGE_ROOT), "openapi.json")


class Recorded(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


Reply = Tuple[int, Dict[str, str], bytes]


def json_reply(status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> Reply:
    content_type = "application/problem+json" if status >= 400 else "application/json"
    return status, {"Content-Type": content_type, "X-Request-ID": "req-%d" % status, **(headers or {})}, json.dumps(body).encode()


class FakeService:
    """A loopback HTTP server; ``route(method, path) -> Reply`` decides every answer."""

    def __init__(self, route: Callable[[Recorded], Reply]) -> None:
        self.route = route
        self.requests: List[Recorded] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                recorded = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                service.requests.append(recorded)
                status, headers, payload = service.route(recorded)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        class Server(ThreadingHTTPServer):
            request_queue_size = 64

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (timeout tests) is no failure of the server

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def api_requests(self) -> List[Recorded]:
        return [r for r in self.requests if not r.path.endswith("/oauth/token/")]

    def token_requests(self) -> List[Recorded]:
        return [r for r in self.requests if r.path.endswith("/oauth/token/")]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def token_reply(token: str = "tok-1", expires_in: int = 3600) -> Reply:
    return json_reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": expires_in, "scope": "devices:read"})
