using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Coldchain.Client.Internal;
using Coldchain.Client.Models;
using Coldchain.Client.Webhooks;

namespace Coldchain.Client.Tests
{
    /// <summary>Tests without a service: the operation table, serialization, retries against a scripted handler, webhooks.</summary>
    public sealed class UnitTests
    {
        private const string Secret = "s3cr3t-value-never-shown";

        private static string FindOpenApi()
        {
            var explicitPath = Environment.GetEnvironmentVariable("COLDCHAIN_OPENAPI");
            if (!string.IsNullOrEmpty(explicitPath)) return explicitPath;
            for (var dir = new DirectoryInfo(AppDomain.CurrentDomain.BaseDirectory); dir != null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "clients", "openapi.json");
                if (File.Exists(candidate)) return candidate;
                candidate = Path.Combine(dir.FullName, "openapi.json");
                if (File.Exists(candidate)) return candidate;
            }
            throw new AssertionException("clients/openapi.json not found (set COLDCHAIN_OPENAPI)");
        }

        [Test]
        public void EveryOperationOfTheDocumentHasAClientMethod()
        {
            var document = JObject.Parse(File.ReadAllText(FindOpenApi()));
            var ids = new List<string>();
            foreach (var path in ((JObject)document["paths"]).Properties())
            {
                foreach (var method in ((JObject)path.Value).Properties())
                {
                    var id = (string)method.Value["operationId"];
                    if (id != null) ids.Add(id);
                }
            }
            Assert.True(ids.Count > 60, "the document lists its operations (" + ids.Count + ")");
            var table = Operations.All.ToDictionary(o => o.OperationId);
            Assert.Equal(ids.Count, Operations.All.Count, "operations in the table");
            foreach (var id in ids)
            {
                OperationInfo info;
                Assert.True(table.TryGetValue(id, out info), "operation " + id + " is in the table");
                var service = typeof(ColdchainClient).GetProperty(info.Service);
                Assert.NotNull(service, "ColdchainClient." + info.Service + " (for " + id + ")");
                Assert.True(info.ClientMethods.Count > 0, id + " has a method");
                foreach (var name in info.ClientMethods)
                {
                    var methods = service.PropertyType.GetMethods().Where(m => m.Name == name).ToList();
                    Assert.True(methods.Count > 0, "ColdchainClient." + info.Service + "." + name + " exists (for " + id + ")");
                    Assert.True(methods.All(m => typeof(Task).IsAssignableFrom(m.ReturnType)), name + " is async");
                    Assert.True(methods.All(m => m.GetParameters().Last().ParameterType == typeof(System.Threading.CancellationToken)), name + " takes a CancellationToken");
                }
            }
            Assert.True(Operations.All.Where(o => o.Method == "POST" && o.Path.EndsWith("create/") || o.OperationId.EndsWith("_create")).All(o => o.Idempotent), "creates send Idempotency-Key");
        }

        [Test]
        public async Task TokenIsFetchedOnceAndReused()
        {
            var handler = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Json(200, "{\"data\":[],\"links\":{\"next\":null}}")));
            using (var client = FakeHandler.Client(handler, o => o.Scopes = new[] { "devices:read", "alarms:read" }))
            {
                await client.Devices.ListAsync();
                await client.Alarms.ListAsync(resolved: false);
                await client.Devices.ListAsync(limit: 5);
            }
            Assert.Equal(1, handler.TokenRequests, "token requests");
            var tokenRequest = handler.Seen.First();
            Assert.True(tokenRequest.Body.Contains("grant_type=client_credentials"), "form-encoded grant");
            Assert.True(tokenRequest.Body.Contains("scope=devices%3Aread+alarms%3Aread") || tokenRequest.Body.Contains("scope=devices%3Aread%20alarms%3Aread"), "scopes sent: " + tokenRequest.Body);
            Assert.Equal("Bearer tok-1-secretish", handler.ApiRequests[2].Header("Authorization"), "the cached token is sent");
            Assert.Equal("https://api.example.test/api/public/v1/alarms/?resolved=false", handler.ApiRequests[1].Uri.ToString(), "query");
        }

        [Test]
        public async Task A401RefreshesTheTokenOnceOnly()
        {
            var handler = new FakeHandler((r, n) => Task.FromResult(n == 1 ? FakeHandler.Problem(401, "invalid_token") : FakeHandler.Json(200, "{\"role\":\"VIEWER\",\"display_name\":\"Viewer\",\"assignable\":true}")));
            using (var client = FakeHandler.Client(handler))
            {
                await client.Devices.GetStatusAsync("d-1");
                Assert.Equal(2, handler.TokenRequests, "a new token after the 401");
                Assert.Equal("Bearer tok-2-secretish", handler.ApiRequests[1].Header("Authorization"), "the retry carries the new token");
            }
            var always = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Problem(401, "invalid_token", "Token revoked")));
            using (var client = FakeHandler.Client(always))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.GetAsync("d-1"), "a second 401");
                Assert.Equal(401, error.Status, "status");
                Assert.Equal("invalid_token", error.Code, "code");
                Assert.Equal(2, always.TokenRequests, "one refresh only");
                Assert.Equal(2, always.ApiRequests.Count, "two attempts");
            }
        }

        [Test]
        public async Task ATokenIsReplacedShortlyBeforeItExpires()
        {
            var tokens = 0;
            var handler = new ExpiringTokenHandler(() => ++tokens);
            using (var client = new ColdchainClient(new ClientOptions { BaseUrl = "https://api.example.test/api/public/v1/", ClientId = "c", ClientSecret = Secret, HttpMessageHandler = handler }))
            {
                await client.Roles.ListAsync();
                await client.Roles.ListAsync();
                Assert.Equal(1, tokens, "cached while valid");
                await Task.Delay(1100);
                await client.Roles.ListAsync();
                Assert.Equal(2, tokens, "renewed before expiry (lifetime 1 s, margin a tenth)");
            }
        }

        private sealed class ExpiringTokenHandler : HttpMessageHandler
        {
            private readonly Func<int> next;

            public ExpiringTokenHandler(Func<int> next)
            {
                this.next = next;
            }

            protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, System.Threading.CancellationToken cancellationToken)
            {
                if (request.RequestUri.AbsolutePath.EndsWith("/oauth/token/", StringComparison.Ordinal))
                {
                    return Task.FromResult(FakeHandler.Json(200, "{\"access_token\":\"t" + next() + "\",\"token_type\":\"Bearer\",\"expires_in\":1,\"scope\":\"users:read\"}"));
                }
                Assert.Equal("/api/public/v1/roles/", request.RequestUri.AbsolutePath, "base URL with the prefix is not doubled");
                return Task.FromResult(FakeHandler.Json(200, "{\"data\":[],\"links\":{\"next\":null}}"));
            }
        }

        [Test]
        public async Task CreatesRetry503And429WithTheSameIdempotencyKey()
        {
            var handler = new FakeHandler((r, n) => Task.FromResult(
                n == 1 ? FakeHandler.Problem(503, "service_unavailable", null, "0")
                : n == 2 ? FakeHandler.Problem(429, "rate_limited", null, "1")
                : FakeHandler.Json(201, "{\"id\":\"c-1\",\"name\":\"Road Co\",\"mode\":\"road\"}")));
            var watch = Stopwatch.StartNew();
            using (var client = FakeHandler.Client(handler))
            {
                var created = await client.Carriers.CreateAsync(new CreateCarrier { Name = "Road Co", Mode = CreateCarrier.ModeValues.Road });
                Assert.Equal("c-1", created.Id, "created");
            }
            Assert.True(watch.ElapsedMilliseconds >= 950, "Retry-After: 1 was honoured (" + watch.ElapsedMilliseconds + " ms)");
            var keys = handler.ApiRequests.Select(r => r.Header("Idempotency-Key")).ToList();
            Assert.Equal(3, keys.Count, "attempts");
            Assert.True(keys[0] != null && keys[0].Length >= 8 && keys[0].Length <= 128, "a generated key");
            Assert.True(keys.All(k => k == keys[0]), "the same key on every retry");
            Assert.Equal("{\"name\":\"Road Co\",\"mode\":\"road\"}", handler.ApiRequests[0].Body, "only the set fields are sent");

            var second = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Json(201, "{\"id\":\"c-2\"}")));
            using (var client = FakeHandler.Client(second))
            {
                await client.Carriers.CreateAsync(new CreateCarrier { Name = "A", Mode = "road" });
                await client.Carriers.CreateAsync(new CreateCarrier { Name = "A", Mode = "road" }, new RequestOptions { IdempotencyKey = "my-key-0001" });
            }
            Assert.True(second.ApiRequests[0].Header("Idempotency-Key") != keys[0], "a new key per call");
            Assert.Equal("my-key-0001", second.ApiRequests[1].Header("Idempotency-Key"), "the given key");
        }

        [Test]
        public async Task RetriesAreBounded()
        {
            var handler = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Problem(503, "service_unavailable", "busy", "0")));
            using (var client = FakeHandler.Client(handler, o => o.MaxRetries = 2))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.ListAsync(), "503 forever");
                Assert.Equal(503, error.Status, "status");
                Assert.Equal(3, handler.ApiRequests.Count, "1 attempt + 2 retries");
            }
            var tooLong = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Problem(429, "rate_limited", "slow down", "3600")));
            var watch = Stopwatch.StartNew();
            using (var client = FakeHandler.Client(tooLong))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.ListAsync(), "Retry-After beyond MaxRetryDelay");
                Assert.Equal("rate_limited", error.Code, "code");
                Assert.Equal(TimeSpan.FromSeconds(3600), error.RetryAfter.Value, "RetryAfter");
            }
            Assert.True(watch.ElapsedMilliseconds < 2000, "did not wait an hour");
            Assert.Equal(1, tooLong.ApiRequests.Count, "not retried");
            var notRetried = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Problem(500, "internal_error")));
            using (var client = FakeHandler.Client(notRetried))
            {
                await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.ListAsync(), "500");
            }
            Assert.Equal(1, notRetried.ApiRequests.Count, "a 500 is not retried");
        }

        [Test]
        public async Task ConnectionErrorsAndTimeouts()
        {
            var flaky = new FakeHandler((r, n) =>
            {
                if (n == 1) throw new HttpRequestException("connection refused");
                return Task.FromResult(FakeHandler.Json(200, "{\"data\":[],\"links\":{\"next\":null}}"));
            });
            using (var client = FakeHandler.Client(flaky))
            {
                await client.Devices.ListAsync();
            }
            Assert.Equal(2, flaky.ApiRequests.Count, "a GET is retried after a connection error");

            var broken = new FakeHandler((r, n) =>
            {
                throw new HttpRequestException("connection reset");
            });
            using (var client = FakeHandler.Client(broken))
            {
                var error = await Assert.ThrowsAsync<ColdchainConnectionException>(() => client.Shipments.CompleteAsync(7), "complete");
                Assert.True(!error.TimedOut, "not a timeout");
            }
            Assert.Equal(1, broken.ApiRequests.Count, "a completion is not repeated after a broken connection");

            var slow = new FakeHandler(async (r, n) =>
            {
                await Task.Delay(3000, r.Cancellation);
                return FakeHandler.Json(200, "{}");
            });
            var watch = Stopwatch.StartNew();
            using (var client = FakeHandler.Client(slow, o =>
            {
                o.Timeout = TimeSpan.FromMilliseconds(200);
                o.MaxRetries = 0;
            }))
            {
                var error = await Assert.ThrowsAsync<ColdchainConnectionException>(() => client.Devices.GetAsync("d"), "timeout");
                Assert.True(error.TimedOut, "TimedOut");
            }
            Assert.True(watch.ElapsedMilliseconds < 2500, "the timeout applies (" + watch.ElapsedMilliseconds + " ms)");
        }

        [Test]
        public async Task ErrorsAreTyped()
        {
            var body = "{\"type\":\"https://docs/errors/validation_failed\",\"title\":\"Validation failed\",\"status\":400,\"detail\":\"The request body is invalid.\",\"code\":\"validation_failed\",\"errors\":[{\"field\":\"name\",\"code\":\"required\",\"message\":\"name is required\"}]}";
            var handler = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Json(400, body, "application/problem+json")));
            using (var client = FakeHandler.Client(handler))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Carriers.CreateAsync(new CreateCarrier()), "400");
                Assert.Equal(400, error.Status, "status");
                Assert.Equal("validation_failed", error.Code, "code");
                Assert.Equal("Validation failed", error.Title, "title");
                Assert.Equal("The request body is invalid.", error.Detail, "detail");
                Assert.Equal(1, error.Errors.Count, "field errors");
                Assert.Equal("name", error.Errors[0].Field, "field");
                Assert.Equal("req-400", error.RequestId, "request id");
                Assert.True(error.Message.Contains("validation_failed") && error.Message.Contains("name is required") && error.Message.Contains("req-400"), error.Message);
                Assert.DoesNotContain(error.ToString(), Secret, "exception");
                Assert.DoesNotContain(error.ToString(), "tok-1-secretish", "exception");
            }
            var html = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Json(502, "<html>bad gateway</html>", "text/html")));
            using (var client = FakeHandler.Client(html, o => o.MaxRetries = 0))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.ListAsync(), "502 html");
                Assert.Equal(502, error.Status, "status of a non-JSON error");
                Assert.True(error is ServerException, "a 5xx is a ServerException");
            }
            // a subclass per family, all of them ColdchainApiException
            Assert.True(ColdchainApiException.For(400, "validation_failed", "t", null, null, null) is BadRequestException, "400");
            Assert.True(ColdchainApiException.For(401, "invalid_token", "t", null, null, null) is AuthenticationException, "401");
            Assert.True(ColdchainApiException.For(403, "insufficient_scope", "t", null, null, null) is PermissionDeniedException, "403");
            Assert.True(ColdchainApiException.For(404, "not_found", "t", null, null, null) is NotFoundException, "404");
            Assert.True(ColdchainApiException.For(409, "shipment_not_active", "t", null, null, null) is ConflictException, "409");
            Assert.True(ColdchainApiException.For(422, "idempotency_key_reused", "t", null, null, null) is UnprocessableEntityException, "422");
            Assert.True(ColdchainApiException.For(429, "rate_limited", "t", null, null, null) is RateLimitException, "429");
            Assert.True(ColdchainApiException.For(503, "service_unavailable", "t", null, null, null) is ServerException, "503");
            Assert.Equal(typeof(ColdchainApiException), ColdchainApiException.For(418, "teapot", "t", null, null, null).GetType(), "other statuses");
        }

        [Test]
        public async Task AccountHeaderFollowsClientWithAccountAndPerCallOptions()
        {
            var handler = new FakeHandler((r, n) => Task.FromResult(FakeHandler.Json(200, "{\"data\":[],\"links\":{\"next\":null}}")));
            using (var client = FakeHandler.Client(handler, o => o.AccountId = "acc-a"))
            {
                await client.Devices.ListAsync();
                await client.WithAccount("acc-b").Devices.ListAsync();
                await client.Devices.ListAsync(options: new RequestOptions { AccountId = "acc-c" });
                await client.WithAccount(null).Devices.ListAsync();
            }
            var accounts = handler.ApiRequests.Select(r => r.Header("X-Service-Account-ID")).ToList();
            Assert.Equal("acc-a", accounts[0], "client default");
            Assert.Equal("acc-b", accounts[1], "WithAccount");
            Assert.Equal("acc-c", accounts[2], "per call");
            Assert.Equal(null, accounts[3], "none");
            Assert.Equal(1, handler.TokenRequests, "WithAccount shares the token cache");
        }

        [Test]
        public async Task AutoPagingFollowsLinksNextOnTheClientsHost()
        {
            var handler = new FakeHandler((r, n) =>
            {
                var cursor = r.Uri.Query.Contains("cursor=p2") ? 2 : r.Uri.Query.Contains("cursor=p3") ? 3 : 1;
                var next = cursor == 1 ? "\"http://internal-host:3000/api/public/v1/devices/?limit=2&cursor=p2\"" : cursor == 2 ? "\"https://api.example.test/api/public/v1/devices/?limit=2&cursor=p3\"" : "null";
                var count = cursor == 3 ? 1 : 2;
                var items = string.Join(",", Enumerable.Range(1, count).Select(i => "{\"id\":\"d" + cursor + i + "\",\"serial_number\":\"S\",\"owned_since\":\"2025-01-02T03:04:05.678Z\"}").ToArray());
                return Task.FromResult(FakeHandler.Json(200, "{\"data\":[" + items + "],\"links\":{\"next\":" + next + "}}"));
            });
            using (var client = FakeHandler.Client(handler))
            {
                var all = client.Devices.ListAutoPaging(limit: 2).ToList();
                Assert.Equal("d11,d12,d21,d22,d31", string.Join(",", all.Select(d => d.Id).ToArray()), "sync enumeration");
                var asyncAll = await client.Devices.ListAutoPaging(limit: 2).ToListAsync();
                Assert.Equal(5, asyncAll.Count, "ToListAsync");
                var iterator = client.Devices.ListAutoPaging(limit: 2).GetAsyncEnumerator();
                var seen = 0;
                while (await iterator.MoveNextAsync()) seen++;
                Assert.Equal(5, seen, "async iterator");
                Assert.Equal(new DateTimeOffset(2025, 1, 2, 3, 4, 5, 678, TimeSpan.Zero), all[0].OwnedSince, "timestamps are DateTimeOffset");
                var first = await client.Devices.ListAsync(limit: 2);
                Assert.True(first.HasMore, "HasMore");
                Assert.Equal(2, first.Data.Count, "page size");
            }
            Assert.True(handler.ApiRequests.All(r => r.Uri.Host == "api.example.test"), "never calls another host with the token");
            Assert.Equal("https://api.example.test/api/public/v1/devices/?limit=2&cursor=p2", handler.ApiRequests[1].Uri.ToString(), "next page on the client's host");
        }

        [Test]
        public void RequestModelsSendOnlyTheFieldsThatWereSet()
        {
            Assert.Equal("{}", JsonConvert.SerializeObject(new UpdateAccount(), Json.Settings), "nothing set");
            Assert.Equal("{\"label\":null}", JsonConvert.SerializeObject(new UpdateDeviceLabel { Label = null }, Json.Settings), "explicit null clears");
            var settings = new UpdateDeviceSettings { MeasurementIntervalS = 300, Thresholds = new UpdateThresholds { TemperatureMax = 8.5, TemperatureMin = null } };
            Assert.Equal("{\"measurement_interval_s\":300,\"thresholds\":{\"temperature_max\":8.5,\"temperature_min\":null}}", JsonConvert.SerializeObject(settings, Json.Settings), "nested");
            settings.Unset("measurement_interval_s");
            Assert.True(!settings.IsSet("measurement_interval_s"), "Unset");
            var location = new CreateLocation
            {
                Name = "Izmir DC",
                Kind = CreateLocation.KindValues.Warehouse,
                Geofence = new CircleGeofence { Type = "circle", Center = new GeoPoint { Latitude = 38.4, Longitude = 27.1 }, RadiusM = 500 },
            };
            Assert.Equal("{\"name\":\"Izmir DC\",\"kind\":\"warehouse\",\"geofence\":{\"type\":\"circle\",\"center\":{\"latitude\":38.4,\"longitude\":27.1},\"radius_m\":500.0}}", JsonConvert.SerializeObject(location, Json.Settings), "oneOf member");
            var share = new PutShare { ExpiresAt = new DateTimeOffset(2030, 1, 2, 3, 4, 5, TimeSpan.Zero), MaxViews = 10 };
            Assert.Equal("{\"expires_at\":\"2030-01-02T03:04:05+00:00\",\"max_views\":10}", JsonConvert.SerializeObject(share, Json.Settings), "dates are ISO 8601");
        }

        [Test]
        public void ResponsesReadUnionsAndKeepUnknownFields()
        {
            var json = "{\"id\":\"l1\",\"name\":\"A\",\"kind\":\"port\",\"geofence\":{\"type\":\"polygon\",\"polygon\":{\"type\":\"Polygon\",\"coordinates\":[[[1,2],[3,4],[5,6],[1,2]]]}},\"automation\":{\"on_entry\":{\"raise_alarm\":true,\"future_flag\":1}},\"created_at\":\"2025-01-01T00:00:00Z\",\"updated_at\":\"2025-01-01T00:00:00Z\"}";
            var location = Json.Deserialize<Location>(json);
            var polygon = location.Geofence as PolygonGeofence;
            Assert.NotNull(polygon, "polygon variant");
            Assert.Equal(4, polygon.Polygon.Coordinates[0].Count, "ring");
            Assert.Equal(true, location.Automation.OnEntry.RaiseAlarm, "nested");
            Assert.True(location.Automation.OnEntry.IsSet("future_flag"), "unknown field kept");
            var unknown = Json.Deserialize<Location>("{\"id\":\"l2\",\"geofence\":{\"type\":\"hexagon\",\"side\":3}}");
            Assert.True(unknown.Geofence is UnknownGeofence, "an unknown variant is kept, not rejected");
            var report = Json.Deserialize<Report>("{\"id\":\"r\",\"subject\":{\"type\":\"shipment\",\"id\":12},\"size_bytes\":10}");
            Assert.Equal(12L, ((ShipmentSubject)report.Subject).Id, "report subject");
            var name = Json.Deserialize<Carrier>("{\"id\":\"c\",\"name\":\"2025-01-01T00:00:00Z\"}");
            Assert.Equal("2025-01-01T00:00:00Z", name.Name, "strings that look like dates stay as sent");
        }

        [Test]
        public async Task NoSecretOrTokenInToStringOrLogs()
        {
            var lines = new List<string>();
            var handler = new FakeHandler((r, n) => Task.FromResult(n == 1 ? FakeHandler.Problem(401, "invalid_token") : FakeHandler.Problem(404, "not_found", "No such device")));
            var options = new ClientOptions { BaseUrl = "https://api.example.test", ClientId = "client-1", ClientSecret = Secret, HttpMessageHandler = handler, Logger = lines.Add };
            using (var client = new ColdchainClient(options))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.GetAsync("nope"), "404");
                Assert.Equal("not_found", error.Code, "code");
                Assert.DoesNotContain(error.ToString(), Secret, "exception");
                Assert.DoesNotContain(client.ToString(), Secret, "client ToString");
                Assert.DoesNotContain(options.ToString(), Secret, "options ToString");
            }
            Assert.True(lines.Count >= 4, "the client logs (" + lines.Count + " lines)");
            foreach (var line in lines)
            {
                Assert.DoesNotContain(line, Secret, "log line");
                Assert.DoesNotContain(line, "secretish", "log line (token)");
            }
        }

        [Test]
        public void StandardWebhooksVerifyAndParse()
        {
            // the format's published example, and signatures made with its reference library (standardwebhooks on npm)
            Assert.Equal("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", StandardWebhookVerifier.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", Encoding.UTF8.GetBytes("{\"test\": 2432232314}")), "published vector");
            const string secret = "whsec_AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=";
            const string previous = "whsec_BAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=";
            const string id = "6c1f2a5e-0000-4000-8000-000000000001";
            var body = Encoding.UTF8.GetBytes("{\"id\":\"6c1f2a5e-0000-4000-8000-000000000001\",\"type\":\"alarm.created\",\"created_at\":\"2026-01-01T00:00:00.000Z\",\"data\":{\"message\":\"too warm\"}}");
            const string signature = "v1,yzYzLJ/BnfmP6yK3oD032uFwYX5ZKHRm9JFa7hI3yRo=";
            const string previousSignature = "v1,o/95EwXswQPPo64/0n3UKHtT1aMUzHGM2I4bmQRymzI=";
            Assert.Equal(signature, StandardWebhookVerifier.Sign(secret, id, "1767225600", body), "reference library signature");
            var at = DateTimeOffset.FromUnixTimeSeconds(1767225600);
            Func<string, string, string, Dictionary<string, string>> headers = (sig, ts, msgId) => new Dictionary<string, string> { { "Webhook-Id", msgId }, { "Webhook-Timestamp", ts }, { "Webhook-Signature", sig } };
            Func<string[], StandardWebhookVerifier> verifier = secrets => new StandardWebhookVerifier(secrets) { Clock = () => at };

            var verified = verifier(new[] { secret }).Verify(body, headers(signature, "1767225600", id));
            Assert.True(verified is AlarmWebhookEvent, "typed alarm event");
            Assert.Equal(id, verified.Id, "event id");
            var rotation = headers(signature + " " + previousSignature, "1767225600", id);
            Assert.Equal(id, verifier(new[] { previous }).Verify(body, rotation).Id, "old secret during a rotation window");
            Assert.Equal(id, verifier(new[] { secret }).Verify(body, rotation).Id, "new secret during a rotation window");
            Assert.Equal(id, verifier(new[] { previous, secret }).Verify(body, headers(signature, "1767225600", id)).Id, "any of several secrets");
            Assert.Equal(id, verifier(new[] { secret }).Verify(body, headers("v2,abc " + signature, "1767225600", id)).Id, "unknown versions skipped");
            Assert.Equal(signature, StandardWebhookVerifier.Sign("whsec_AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM", id, "1767225600", body), "unpadded (base64url) secret");

            Assert.Throws<WebhookVerificationException>(() => verifier(new[] { previous }).Verify(body, headers(signature, "1767225600", id)), "wrong secret");
            var tampered = (byte[])body.Clone();
            tampered[10] ^= 1;
            Assert.Throws<WebhookVerificationException>(() => verifier(new[] { secret }).Verify(tampered, headers(signature, "1767225600", id)), "tampered body");
            var stale = new StandardWebhookVerifier(secret) { Clock = () => at.AddSeconds(301) };
            Assert.Throws<WebhookVerificationException>(() => stale.Verify(body, headers(signature, "1767225600", id)), "older than 300 s");
            var edge = new StandardWebhookVerifier(secret) { Clock = () => at.AddSeconds(-300) };
            Assert.NotNull(edge.Verify(body, headers(signature, "1767225600", id)), "within 300 s");
            var foreign = StandardWebhookVerifier.Sign(secret, "e2", "1767225600", body);
            Assert.Throws<WebhookVerificationException>(() => verifier(new[] { secret }).Verify(body, headers(foreign, "1767225600", "e2")), "webhook-id not the body id");
            var noId = headers(signature, "1767225600", id);
            noId.Remove("Webhook-Id");
            Assert.Throws<WebhookVerificationException>(() => verifier(new[] { secret }).Verify(body, noId), "no webhook-id");
            Assert.Throws<ArgumentOutOfRangeException>(() => new StandardWebhookVerifier(secret) { Tolerance = TimeSpan.FromSeconds(301) }, "tolerance above 300 s refused");
            // one tolerance rule for both formats: more than 0 and at most 300 s
            Assert.Throws<ArgumentOutOfRangeException>(() => new StandardWebhookVerifier(secret) { Tolerance = TimeSpan.Zero }, "a zero tolerance refused");
            Assert.Throws<ArgumentOutOfRangeException>(() => new WebhookVerifier("whsec_new") { Tolerance = TimeSpan.Zero }, "a zero tolerance refused (service-v1)");
            Assert.NotNull(new StandardWebhookVerifier(secret) { Tolerance = TimeSpan.FromMilliseconds(500), Clock = () => at }.Verify(body, headers(signature, "1767225600", id)), "a sub-second tolerance, same second");
            Assert.Throws<ArgumentException>(() => new StandardWebhookVerifier("whsec_not base64!"), "not base64");
        }

        [Test]
        public void WebhooksVerifyAndParse()
        {
            var body = Encoding.UTF8.GetBytes("{\"id\":\"8f1c\",\"type\":\"alarm.created\",\"created_at\":\"2025-07-01T10:00:00.000Z\",\"data\":{\"id\":\"a1\",\"device_id\":\"d1\",\"shipment_id\":12,\"type\":\"TEMPERATURE\",\"severity\":\"WARNING\",\"source\":\"THRESHOLD\",\"message\":\"too warm\",\"resolved\":false,\"created_at\":\"2025-07-01T10:00:00.000Z\",\"resolved_at\":null,\"resolved_by\":null}}");
            var headers = WebhookVerifier.SignedHeaders("whsec_new", body, "alarm.created", "8f1c");
            var verified = new WebhookVerifier("whsec_new").Verify(body, headers);
            var alarm = verified as AlarmWebhookEvent;
            Assert.NotNull(alarm, "typed alarm event");
            Assert.Equal("TEMPERATURE", alarm.Alarm.Type, "alarm type");
            Assert.Equal(12L, alarm.Alarm.ShipmentId, "shipment id");
            Assert.Equal("8f1c", alarm.Id, "event id");
            Assert.True(new WebhookVerifier("whsec_old", "whsec_new").Verify(body, headers) is AlarmWebhookEvent, "any of the secrets (rotation)");
            Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier("whsec_other").Verify(body, headers), "wrong secret");
            var tampered = (byte[])body.Clone();
            tampered[10] ^= 1;
            Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier("whsec_new").Verify(tampered, headers), "tampered body");
            var old = WebhookVerifier.SignedHeaders("whsec_new", body, "alarm.created", "8f1c", DateTimeOffset.UtcNow.AddSeconds(-301));
            Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier("whsec_new").Verify(body, old), "older than 300 s");
            var edge = WebhookVerifier.SignedHeaders("whsec_new", body, "alarm.created", "8f1c", DateTimeOffset.UtcNow.AddSeconds(-290));
            Assert.NotNull(new WebhookVerifier("whsec_new").Verify(body, edge), "within 300 s");
            var noSignature = new Dictionary<string, string>(headers);
            noSignature.Remove(WebhookHeaders.Signature);
            Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier("whsec_new").Verify(body, noSignature), "unsigned");
            var lower = headers.ToDictionary(h => h.Key.ToLowerInvariant(), h => h.Value);
            Assert.NotNull(new WebhookVerifier("whsec_new").Verify(body, name => lower.ContainsKey(name.ToLowerInvariant()) ? lower[name.ToLowerInvariant()] : null), "header lookup function");

            var future = Encoding.UTF8.GetBytes("{\"id\":\"e2\",\"type\":\"device.renamed\",\"created_at\":\"2025-07-01T10:00:00Z\",\"data\":{\"x\":1}}");
            var passed = new WebhookVerifier("s").Verify(future, WebhookVerifier.SignedHeaders("s", future, "device.renamed", "e2"));
            Assert.Equal(typeof(WebhookEvent), passed.GetType(), "unknown types pass through");
            Assert.Equal("device.renamed", passed.Type, "type");
            Assert.Equal(1, (int)passed.Data["x"], "data");

            var shipment = Encoding.UTF8.GetBytes("{\"id\":\"e3\",\"type\":\"shipment.completed\",\"created_at\":\"2025-07-01T10:00:00Z\",\"data\":{\"id\":41,\"status\":\"completed\",\"device_ids\":[\"d1\"]}}");
            var shipped = new WebhookVerifier("s").Verify(shipment, WebhookVerifier.SignedHeaders("s", shipment, "shipment.completed", "e3")) as ShipmentWebhookEvent;
            Assert.NotNull(shipped, "typed shipment event");
            Assert.Equal(41L, shipped.Shipment.Id, "shipment id");
            // X-Service-Event-ID must be the body's id; a tolerance above 300 s is refused (issue 29)
            var otherId = new Dictionary<string, string>(headers);
            otherId[WebhookHeaders.EventId] = "not-8f1c";
            Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier("whsec_new").Verify(body, otherId), "event id header differs from the body");
            Assert.Throws<ArgumentOutOfRangeException>(() => new WebhookVerifier("whsec_new") { Tolerance = TimeSpan.FromSeconds(301) }, "tolerance above 300 s");
            Assert.NotNull(new WebhookVerifier("whsec_new") { Tolerance = TimeSpan.FromSeconds(60) }.Verify(body, headers), "a smaller tolerance");
            // the signature the service computes for a known input (libs/webhook-kit/src/signature.ts)
            Assert.Equal("v1=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163", WebhookVerifier.Sign("secret", "1700000000", Encoding.UTF8.GetBytes("{}")), "known vector");
        }
    }
}
