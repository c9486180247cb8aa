"""A 429 from the real service is retried after Retry-After (skipped unless COLDCHAIN_LIMITED_BASE_URL is set).

The api behind COLDCHAIN_LIMITED_BASE_URL runs with a low RATE_LIMIT_PER_MINUTE; the credential
COLDCHAIN_LIMITED_CLIENT_ID / COLDCHAIN_LIMITED_CLIENT_SECRET is used by nothing else.
"""
from __future__ import annotations

import os
import time
import unittest

from _support import PACKAGE_ROOT  # noqa: F401 - puts the package on sys.path

from coldchain_client import ColdchainClient, RateLimitError

ENV = os.environ
BASE_URL = ENV.get("COLDCHAIN_LIMITED_BASE_URL")


@unittest.skipUnless(BASE_URL, "needs a rate-limited service: set COLDCHAIN_LIMITED_BASE_URL and its credential")
class RateLimitTests(unittest.TestCase):
    def test_a_429_is_retried_after_retry_after(self) -> None:
        credentials = (BASE_URL or "", ENV["COLDCHAIN_LIMITED_CLIENT_ID"], ENV["COLDCHAIN_LIMITED_CLIENT_SECRET"])
        impatient = ColdchainClient(*credentials, max_retries=0)
        limited = None
        for _ in range(20):
            try:
                impatient.devices.list(limit=1)
            except RateLimitError as error:
                limited = error
                break
        self.assertIsNotNone(limited, "the service never answered 429")
        assert limited is not None
        self.assertEqual((limited.status, limited.code), (429, "rate_limited"))
        self.assertGreater(limited.retry_after or 0, 0)
        self.assertTrue(limited.request_id)

        patient = ColdchainClient(*credentials, max_retries=3, max_retry_time=90)
        waits = []

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            time.sleep(seconds)

        patient._sleep = sleep
        started = time.monotonic()
        page = patient.devices.list(limit=1)
        self.assertIsInstance(page.data, list)
        self.assertTrue(waits, "the call was not retried")
        self.assertGreaterEqual(waits[0], 1)  # the Retry-After of the service, not a short backoff
        self.assertGreaterEqual(time.monotonic() - started, waits[0])


if __name__ == "__main__":
    unittest.main()
