"""One call of the shared fault suite (test/clients/faults.e2e-spec.ts), as a user would make it.

    python3 fault_driver.py list | create NAME | download REPORT_ID

Reads COLDCHAIN_BASE_URL, COLDCHAIN_CLIENT_ID and COLDCHAIN_CLIENT_SECRET; the client has a 3 s
timeout, 2 retries and a short backoff (the suite's Retry-After values are 1 s). Prints one JSON
line: the outcome, the response metadata, or the error's family (the same words in every client).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Dict

from _support import PACKAGE_ROOT  # noqa: F401 - puts the package on sys.path

import coldchain_client as cc

FAMILIES = (
    (cc.ApiTimeoutError, "timeout"),
    (cc.ApiConnectionError, "connection"),
    (cc.BadRequestError, "bad_request"),
    (cc.AuthenticationError, "authentication"),
    (cc.PermissionDeniedError, "permission"),
    (cc.NotFoundError, "not_found"),
    (cc.ConflictError, "conflict"),
    (cc.UnprocessableEntityError, "unprocessable"),
    (cc.RateLimitError, "rate_limit"),
    (cc.InternalServerError, "server"),
)


def outcome(info: cc.ResponseInfo, **extra: Any) -> Dict[str, Any]:
    return {
        "ok": True,
        "status": info.status,
        "request_id": info.request_id,
        "replayed": info.idempotent_replayed,
        "idempotency_key": info.idempotency_key,
        "rate_limit_remaining": info.rate_limit_remaining,
        **extra,
    }


def main() -> Dict[str, Any]:
    client = cc.ColdchainClient(
        os.environ["COLDCHAIN_BASE_URL"],
        os.environ["COLDCHAIN_CLIENT_ID"],
        os.environ["COLDCHAIN_CLIENT_SECRET"],
        timeout=3.0,
        max_retries=2,
        backoff_base=0.01,
        backoff_max=0.05,
        user_agent="fault-suite/1",
    )
    operation = sys.argv[1]
    try:
        if operation == "list":
            page = client.accounts.list()
            return outcome(cc.response_of(page), count=len(page))
        if operation == "create":
            carrier = client.carriers.create({"name": sys.argv[2], "mode": "road"})
            return outcome(cc.response_of(carrier), id=carrier["id"])
        if operation == "download":
            with tempfile.TemporaryDirectory() as directory:
                result = client.reports.download(sys.argv[2], os.path.join(directory, "report"))
                return outcome(cc.response_of(result), bytes=result.bytes_written)
        raise SystemExit(f"unknown operation {operation}")
    except cc.ColdchainError as error:
        family = next((name for cls, name in FAMILIES if isinstance(error, cls)), "other")
        return {"ok": False, "error": family, "status": getattr(error, "status", None), "code": getattr(error, "code", None)}


if __name__ == "__main__":
    print(json.dumps(main()))
