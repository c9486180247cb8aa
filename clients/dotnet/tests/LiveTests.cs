using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using Coldchain.Client.Models;
using Coldchain.Client.Webhooks;

namespace Coldchain.Client.Tests
{
    /// <summary>Wraps the real HTTP handler: counts token exchanges, sees headers, can spoil a token or lose a response.</summary>
    public sealed class RecordingHandler : DelegatingHandler
    {
        public int TokenRequests;
        public readonly List<string> Tokens = new List<string>();
        public readonly List<string> AccountHeaders = new List<string>();
        public readonly List<string> IdempotencyKeys = new List<string>();
        public readonly List<string> Replayed = new List<string>();
        public readonly List<int> Statuses = new List<int>();
        /// <summary>Send a wrong token on the next API call (as if it had expired or been revoked).</summary>
        public bool SpoilNextToken;
        /// <summary>Let the next create reach the service, then answer the client 503 (a lost response).</summary>
        public bool LoseNextCreateResponse;

        public RecordingHandler() : base(new HttpClientHandler())
        {
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var isToken = request.RequestUri.AbsolutePath.EndsWith("/oauth/token/", StringComparison.Ordinal);
            if (isToken) Interlocked.Increment(ref TokenRequests);
            else
            {
                lock (Tokens)
                {
                    if (request.Headers.Authorization != null) Tokens.Add(request.Headers.Authorization.Parameter);
                    IEnumerable<string> values;
                    AccountHeaders.Add(request.Headers.TryGetValues("X-Service-Account-ID", out values) ? values.First() : null);
                    if (request.Headers.TryGetValues("Idempotency-Key", out values)) IdempotencyKeys.Add(values.First());
                }
                if (SpoilNextToken)
                {
                    SpoilNextToken = false;
                    request.Headers.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Bearer", "eyJhbGciOiJIUzI1NiJ9.e30.spoiled");
                }
            }
            var response = await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
            lock (Tokens)
            {
                Statuses.Add((int)response.StatusCode);
                IEnumerable<string> replayed;
                if (response.Headers.TryGetValues("Idempotent-Replayed", out replayed)) Replayed.Add(replayed.First());
            }
            if (!isToken && request.Method == HttpMethod.Post && LoseNextCreateResponse && request.Headers.Contains("Idempotency-Key"))
            {
                LoseNextCreateResponse = false;
                response.Dispose();
                var lost = new HttpResponseMessage(HttpStatusCode.ServiceUnavailable) { Content = new StringContent("{\"type\":\"about:blank\",\"title\":\"Service unavailable\",\"status\":503,\"code\":\"service_unavailable\"}", Encoding.UTF8, "application/problem+json"), RequestMessage = request };
                lost.Headers.TryAddWithoutValidation("Retry-After", "0");
                return lost;
            }
            return response;
        }
    }

    /// <summary>Tests against a running service (the e2e spec sets the environment; see test/clients/dotnet.e2e-spec.ts).</summary>
    public sealed class LiveTests
    {
        private static string Env(string name)
        {
            return Environment.GetEnvironmentVariable(name);
        }

        private static readonly List<string> LogLines = new List<string>();

        private static ColdchainClient Client(RecordingHandler handler, string clientId = null, string secret = null, string accountId = null, int? maxRetries = null)
        {
            var options = new ClientOptions
            {
                BaseUrl = Env("COLDCHAIN_BASE_URL"),
                ClientId = clientId ?? Env("COLDCHAIN_CLIENT_ID"),
                ClientSecret = secret ?? Env("COLDCHAIN_CLIENT_SECRET"),
                AccountId = accountId,
                HttpMessageHandler = handler ?? new RecordingHandler(),
                Timeout = TimeSpan.FromSeconds(20),
                Logger = line =>
                {
                    lock (LogLines) LogLines.Add(line);
                },
            };
            if (maxRetries.HasValue) options.MaxRetries = maxRetries.Value;
            return new ColdchainClient(options);
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET")]
        public async Task TokenIsCachedAndRefreshedOnceOn401()
        {
            var handler = new RecordingHandler();
            using (var client = Client(handler))
            {
                await client.Devices.ListAsync(limit: 1);
                await client.Roles.ListAsync();
                await client.Accounts.ListAsync();
                Assert.Equal(1, handler.TokenRequests, "one token exchange for three calls");
                Assert.Equal(1, handler.Tokens.Distinct().Count(), "the same token");
                handler.SpoilNextToken = true;
                var devices = await client.Devices.ListAsync(limit: 1);
                Assert.True(devices.Data.Count == 1, "the call succeeded after the 401");
                Assert.True(handler.Statuses.Contains(401), "the service answered 401 to the spoiled token");
                Assert.Equal(2, handler.TokenRequests, "a fresh token after the 401");
                await client.Devices.ListAsync(limit: 1);
                Assert.Equal(2, handler.TokenRequests, "the fresh token is cached");
            }
            using (var wrong = Client(new RecordingHandler(), secret: "not-the-secret-123"))
            {
                var error = await Assert.ThrowsAsync<ColdchainApiException>(() => wrong.Devices.ListAsync(), "bad credentials");
                Assert.Equal(401, error.Status, "status");
                Assert.Equal("invalid_client", error.Code, "OAuth error code");
                Assert.DoesNotContain(error.ToString(), "not-the-secret-123", "exception");
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_MULTI_CLIENT_ID", "COLDCHAIN_MULTI_CLIENT_SECRET", "COLDCHAIN_ACCOUNT_ID", "COLDCHAIN_OTHER_ACCOUNT_ID", "COLDCHAIN_FOREIGN_ACCOUNT_ID")]
        public async Task AccountSelection()
        {
            var a = Env("COLDCHAIN_ACCOUNT_ID");
            var b = Env("COLDCHAIN_OTHER_ACCOUNT_ID");
            var handler = new RecordingHandler();
            using (var client = Client(handler, Env("COLDCHAIN_MULTI_CLIENT_ID"), Env("COLDCHAIN_MULTI_CLIENT_SECRET")))
            {
                var accounts = await client.Accounts.ListAutoPaging().ToListAsync();
                Assert.True(accounts.Any(x => x.Id == a) && accounts.Any(x => x.Id == b), "both accounts are listed");
                var missing = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.ListAsync(), "no account chosen");
                Assert.Equal(400, missing.Status, "status");
                Assert.Equal("account_selection_required", missing.Code, "code");

                var inA = (await client.WithAccount(a).Devices.ListAutoPaging().ToListAsync()).Select(d => d.Id).ToList();
                var inB = (await client.WithAccount(b).Devices.ListAutoPaging().ToListAsync()).Select(d => d.Id).ToList();
                var perCall = (await client.Devices.ListAutoPaging(options: new RequestOptions { AccountId = b }).ToListAsync()).Select(d => d.Id).ToList();
                Assert.True(inA.Count > 0 && inB.Count > 0, "devices in both accounts");
                Assert.True(!inA.Intersect(inB).Any(), "each account sees its own devices");
                Assert.Equal(string.Join(",", inB.ToArray()), string.Join(",", perCall.ToArray()), "per-call account");
                Assert.True(handler.AccountHeaders.Contains(a) && handler.AccountHeaders.Contains(b), "X-Service-Account-ID was sent");
                var account = await client.WithAccount(b).Accounts.GetAsync(b);
                Assert.Equal(b, account.Id, "account detail");

                var foreign = await Assert.ThrowsAsync<ColdchainApiException>(() => client.WithAccount(Env("COLDCHAIN_FOREIGN_ACCOUNT_ID")).Devices.ListAsync(), "an account outside the allow-list");
                Assert.Equal(403, foreign.Status, "status");
                Assert.Equal("account_not_allowed", foreign.Code, "code");
            }
            using (var single = Client(new RecordingHandler(), accountId: a))
            {
                var page = await single.Devices.ListAsync(limit: 1);
                Assert.Equal(1, page.Data.Count, "a single-account credential with its account chosen");
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET")]
        public async Task PagingAcrossPages()
        {
            var handler = new RecordingHandler();
            using (var client = Client(handler))
            {
                var first = await client.Devices.ListAsync(limit: 2);
                Assert.Equal(2, first.Data.Count, "first page");
                Assert.True(first.HasMore, "more than one page");
                var second = await first.GetNextPageAsync();
                Assert.True(second.Data.Count > 0 && !second.Data.Any(d => first.Data.Any(f => f.Id == d.Id)), "the next page has other devices");
                var calls = handler.Statuses.Count;
                var all = client.Devices.ListAutoPaging(limit: 2).ToList();
                var pages = handler.Statuses.Count - calls;
                Assert.True(all.Count >= 5, "at least five devices (" + all.Count + ")");
                Assert.True(pages >= 3, "auto-paging fetched " + pages + " pages");
                Assert.Equal(all.Count, all.Select(d => d.Id).Distinct().Count(), "no duplicates");
                var asyncAll = await client.Devices.ListAutoPaging(limit: 2).ToListAsync();
                Assert.Equal(string.Join(",", all.Select(d => d.Id).ToArray()), string.Join(",", asyncAll.Select(d => d.Id).ToArray()), "sync and async agree");
                var counted = 0;
                await client.Devices.ListAutoPaging(limit: 3).ForEachAsync(d => counted++);
                Assert.Equal(all.Count, counted, "ForEachAsync");
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET")]
        public async Task IdempotentCreateReplay()
        {
            var handler = new RecordingHandler();
            using (var client = Client(handler))
            {
                var key = "dotnet-" + Guid.NewGuid().ToString("N");
                var name = "Carrier " + key;
                var first = await client.Carriers.CreateAsync(new CreateCarrier { Name = name, Mode = "road" }, new RequestOptions { IdempotencyKey = key });
                var again = await client.Carriers.CreateAsync(new CreateCarrier { Name = name, Mode = "road" }, new RequestOptions { IdempotencyKey = key });
                Assert.Equal(first.Id, again.Id, "the replay returns the same record");
                Assert.True(handler.Replayed.Contains("true"), "Idempotent-Replayed: true");
                var reused = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Carriers.CreateAsync(new CreateCarrier { Name = name + " other", Mode = "road" }, new RequestOptions { IdempotencyKey = key }), "the key with another body");
                Assert.Equal(422, reused.Status, "status");
                Assert.Equal("idempotency_key_reused", reused.Code, "code");

                // the response of a create is lost: the client's own retry carries the same generated key
                handler.IdempotencyKeys.Clear();
                handler.Replayed.Clear();
                handler.LoseNextCreateResponse = true;
                var lostName = "Lost " + Guid.NewGuid().ToString("N");
                var created = await client.Carriers.CreateAsync(new CreateCarrier { Name = lostName, Mode = "sea", Mmsi = "271000123" });
                Assert.Equal(2, handler.IdempotencyKeys.Count, "two attempts");
                Assert.Equal(handler.IdempotencyKeys[0], handler.IdempotencyKeys[1], "the same generated key");
                Assert.True(handler.Replayed.Contains("true"), "the retry was answered from the stored response");
                var carriers = await client.Carriers.ListAutoPaging(limit: 200).ToListAsync();
                Assert.Equal(1, carriers.Count(c => c.Name == lostName), "one carrier created");
                Assert.Equal(created.Id, carriers.Single(c => c.Name == lostName).Id, "the replayed record");
                await client.Carriers.DeleteAsync(created.Id);
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET", "COLDCHAIN_REPORTED_SHIPMENT_ID")]
        public async Task TypedErrorsFor400And404And409()
        {
            using (var client = Client(new RecordingHandler()))
            {
                var invalid = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Carriers.CreateAsync(new CreateCarrier { Name = "", Mode = "boat" }), "400");
                Assert.Equal(400, invalid.Status, "status");
                Assert.Equal("validation_failed", invalid.Code, "code");
                Assert.True(invalid.Errors.Any(e => e.Field == "mode") && invalid.Errors.Any(e => e.Field == "name"), "field errors: " + invalid.Message);
                Assert.True(!string.IsNullOrEmpty(invalid.RequestId), "request id");
                Assert.True(!string.IsNullOrEmpty(invalid.Title), "title");

                var missing = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Devices.GetAsync(Guid.NewGuid().ToString()), "404");
                Assert.Equal(404, missing.Status, "status");
                Assert.Equal("not_found", missing.Code, "code");
                Assert.True(!string.IsNullOrEmpty(missing.Detail), "detail");

                var completed = long.Parse(Env("COLDCHAIN_REPORTED_SHIPMENT_ID"));
                var conflict = await Assert.ThrowsAsync<ColdchainApiException>(() => client.Shipments.CompleteAsync(completed), "409");
                Assert.Equal(409, conflict.Status, "status");
                Assert.True(!string.IsNullOrEmpty(conflict.Code), "a conflict code (" + conflict.Code + ")");
                Assert.True(conflict.Message.Contains(conflict.Code) && conflict.Message.Contains(conflict.RequestId), "the message names code and request id");
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET", "COLDCHAIN_FREE_DEVICE_IDS", "COLDCHAIN_TELEMETRY_DEVICE_ID")]
        public async Task ShipmentLifecycleTelemetryAndCatalogue()
        {
            using (var client = Client(new RecordingHandler()))
            {
                var origin = await client.Locations.CreateAsync(new CreateLocation { Name = "Izmir DC", Kind = "warehouse", Geofence = new CircleGeofence { Type = "circle", Center = new GeoPoint { Latitude = 38.42, Longitude = 27.14 }, RadiusM = 500 } });
                var destination = await client.Locations.CreateAsync(new CreateLocation { Name = "Ankara DC", Kind = "distribution_center", Geofence = new CircleGeofence { Type = "circle", Center = new GeoPoint { Latitude = 39.93, Longitude = 32.85 }, RadiusM = 800 } });
                Assert.True(origin.Geofence is CircleGeofence, "the geofence reads back as a circle");
                var renamed = await client.Locations.UpdateAsync(origin.Id, new UpdateLocation { City = "Izmir", PostalCode = null });
                Assert.Equal("Izmir", renamed.City, "PATCH");
                var receiver = await client.Receivers.CreateAsync(new CreateReceiver { Name = "Clinic", NotificationEmails = new List<string> { "ops@example.com" } });
                await client.Receivers.UpdateAsync(receiver.Id, new UpdateReceiver { ContactName = null });
                await client.Receivers.DeleteAsync(receiver.Id);

                var devices = Env("COLDCHAIN_FREE_DEVICE_IDS").Split(',').Take(2).ToList();
                var shipment = await client.Shipments.CreateAsync(new CreateShipment { Reference = "DOTNET-" + Guid.NewGuid().ToString("N").Substring(0, 8), Name = ".NET test shipment", OriginLocationId = origin.Id, DestinationLocationId = destination.Id, DeviceIds = devices });
                Assert.Equal("active", shipment.Status, "active at once");
                Assert.Equal(2, shipment.DeviceIds.Count, "two devices");
                var share = await client.Shipments.PutShareAsync(shipment.Id, new PutShare { ExpiresInHours = 24, MaxViews = 10 });
                Assert.True(share.Enabled && share.Url != null && share.Url.StartsWith("http"), "share URL");
                Assert.Equal(share.Url, (await client.Shipments.GetShareAsync(shipment.Id)).Url, "share status");
                var tracking = await client.Shipments.ListTrackingAsync(shipment.Id);
                Assert.NotNull(tracking.Data, "tracking");
                var listed = await client.Shipments.ListAsync(status: "active", search: shipment.Reference);
                Assert.True(listed.Data.Any(s => s.Id == shipment.Id), "listed with filters");
                var completed = await client.Shipments.CompleteAsync(shipment.Id);
                Assert.Equal("completed", completed.Status, "completed");
                Assert.NotNull(completed.CompletedAt, "completed_at");

                var device = Env("COLDCHAIN_TELEMETRY_DEVICE_ID");
                var points = await client.Telemetry.ListAutoPaging(device).ToListAsync();
                Assert.True(points.Count > 0 && points.All(p => p.RecordedAt > DateTimeOffset.UtcNow.AddHours(-24.1)), "points of the last 24 h (" + points.Count + ")");
                var buckets = await client.Telemetry.ListBucketsAsync(device, "1h", from: DateTimeOffset.UtcNow.AddHours(-6));
                Assert.True(buckets.Data.Count >= 6 && buckets.Data.Sum(b => b.Count) > 0, "hourly buckets");
                var status = await client.Devices.GetStatusAsync(device);
                Assert.Equal(device, status.DeviceId, "status");
                var alarms = await client.Devices.ListAlarmsAsync(device);
                Assert.True(alarms.Data.Count > 0, "the device's alarm");
                var alarm = await client.Alarms.GetAsync(alarms.Data[0].Id);
                Assert.Equal(alarms.Data[0].Id, alarm.Id, "alarm detail");
                await client.Devices.ListMaintenanceAsync(device);
                var labelled = await client.Devices.UpdateLabelAsync(device, new UpdateDeviceLabel { Label = "Fridge 7" });
                Assert.Equal("Fridge 7", labelled.Label, "label");
                var cleared = await client.Devices.UpdateLabelAsync(device, new UpdateDeviceLabel { Label = null });
                Assert.Equal(null, cleared.Label, "label cleared with an explicit null");
                await client.Users.ListAsync();
                await client.Invitations.ListAsync();
                await client.AlertPresets.ListAsync();
                await client.ShipmentTemplates.ListAsync();
                var index = await client.Meta.GetIndexAsync();
                Assert.NotNull(index["links"], "API index");
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET", "COLDCHAIN_REPORTED_SHIPMENT_ID")]
        public async Task ReportDownloadStreamedToAFile()
        {
            using (var client = Client(new RecordingHandler()))
            {
                var reports = await client.Reports.ListAsync(shipmentId: long.Parse(Env("COLDCHAIN_REPORTED_SHIPMENT_ID")));
                Assert.True(reports.Data.Count > 0, "the shipment has reports");
                foreach (var report in reports.Data)
                {
                    var path = Path.Combine(Path.GetTempPath(), "coldchain-dotnet-" + Guid.NewGuid().ToString("N") + "-" + report.Name);
                    try
                    {
                        var written = await client.Reports.DownloadToFileAsync(report.Id, path);
                        Assert.Equal(report.SizeBytes, written, "bytes written");
                        Assert.Equal(report.SizeBytes, new FileInfo(path).Length, "file size");
                        using (var sha = SHA256.Create())
                        using (var file = File.OpenRead(path))
                        {
                            Assert.Equal(report.Sha256, BitConverter.ToString(sha.ComputeHash(file)).Replace("-", "").ToLowerInvariant(), "sha256");
                        }
                    }
                    finally
                    {
                        if (File.Exists(path)) File.Delete(path);
                    }
                    Assert.True(report.Subject is ShipmentSubject, "report subject");
                }
                using (var download = await client.Reports.DownloadAsync(reports.Data[0].Id))
                {
                    Assert.Equal(reports.Data[0].ContentType, download.ContentType, "content type");
                    Assert.Equal(reports.Data[0].Name, download.FileName, "file name");
                    var memory = new MemoryStream();
                    Assert.Equal(reports.Data[0].SizeBytes, await download.CopyToAsync(memory), "streamed");
                }
            }
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET", "COLDCHAIN_WEBHOOK_FILE", "COLDCHAIN_WEBHOOK_SECRET")]
        public void DeliveriesOfTheRealDispatcherVerify()
        {
            var deliveries = JArray.Parse(File.ReadAllText(Env("COLDCHAIN_WEBHOOK_FILE")));
            var secret = Env("COLDCHAIN_WEBHOOK_SECRET");
            Assert.True(deliveries.Count >= 2, "deliveries were received (" + deliveries.Count + ")");
            var types = new HashSet<string>();
            foreach (JObject delivery in deliveries)
            {
                var body = Convert.FromBase64String((string)delivery["body_base64"]);
                var headers = ((JObject)delivery["headers"]).Properties().ToDictionary(p => p.Name, p => (string)p.Value, StringComparer.OrdinalIgnoreCase);
                var verified = new WebhookVerifier(secret).Verify(body, headers);
                Assert.Equal(headers[WebhookHeaders.EventId], verified.Id, "event id header = body id");
                Assert.Equal(headers[WebhookHeaders.Event], verified.Type, "event type");
                Assert.NotNull(verified.CreatedAt, "created_at");
                types.Add(verified.Type);
                if (verified.Type.StartsWith("alarm.", StringComparison.Ordinal))
                {
                    var alarm = verified as AlarmWebhookEvent;
                    Assert.NotNull(alarm, "typed alarm event");
                    Assert.True(!string.IsNullOrEmpty(alarm.Alarm.Id) && alarm.Alarm.Type != null, "alarm record");
                }
                if (verified.Type.StartsWith("shipment.", StringComparison.Ordinal))
                {
                    var shipment = verified as ShipmentWebhookEvent;
                    Assert.NotNull(shipment, "typed shipment event");
                    Assert.True(shipment.Shipment.Id > 0 && shipment.Shipment.DeviceIds.Count > 0, "shipment record");
                }
                Assert.NotNull(new WebhookVerifier("whsec_retired", secret).Verify(body, headers), "accepted during a rotation");
                Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier("whsec_retired").Verify(body, headers), "another secret is refused");
                var reserialized = Encoding.UTF8.GetBytes(JObject.Parse(Encoding.UTF8.GetString(body)).ToString());
                Assert.Throws<WebhookVerificationException>(() => new WebhookVerifier(secret).Verify(reserialized, headers), "re-serialized JSON is not the raw body");
            }
            Assert.True(types.Contains(WebhookEventTypes.AlarmCreated) && types.Contains(WebhookEventTypes.ShipmentCreated), "alarm and shipment events: " + string.Join(",", types.ToArray()));
        }

        [Test]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET")]
        public void ZzNoSecretOrTokenInAnyLogLine()
        {
            var secrets = new[] { Env("COLDCHAIN_CLIENT_SECRET"), Env("COLDCHAIN_MULTI_CLIENT_SECRET") }.Where(s => !string.IsNullOrEmpty(s)).ToList();
            List<string> lines;
            lock (LogLines) lines = LogLines.ToList();
            Assert.True(lines.Count > 10, "the live tests logged (" + lines.Count + " lines)");
            foreach (var line in lines)
            {
                foreach (var secret in secrets) Assert.DoesNotContain(line, secret, "log line");
                Assert.True(!line.Contains("eyJ"), "no JWT in a log line: " + line);
            }
        }

        /// <summary>
        /// Run against an api with RATE_LIMIT_PER_MINUTE=5. Both clients first make a call (so they
        /// hold a token), then the test prints READY and waits for a line on stdin: meanwhile the spec
        /// fills this credential's window, leaving it a few seconds. Then: a 429 with Retry-After, and
        /// the same call waited for and retried.
        /// </summary>
        [Test]
        [Category("ratelimit")]
        [Live("COLDCHAIN_BASE_URL", "COLDCHAIN_CLIENT_ID", "COLDCHAIN_CLIENT_SECRET")]
        public async Task A429IsRetriedAfterRetryAfter()
        {
            var handler = new RecordingHandler();
            using (var impatient = Client(new RecordingHandler(), maxRetries: 0))
            using (var client = Client(handler))
            {
                await impatient.Roles.ListAsync();
                await client.Roles.ListAsync();
                Console.WriteLine("READY");
                Console.Out.Flush();
                Console.In.ReadLine();
                handler.Statuses.Clear();

                var limited = await Assert.ThrowsAsync<ColdchainApiException>(() => impatient.Roles.ListAsync(), "429 without retries");
                Assert.Equal(429, limited.Status, "status");
                Assert.Equal("rate_limited", limited.Code, "code");
                Assert.True(limited.RetryAfter.HasValue && limited.RetryAfter.Value > TimeSpan.Zero, "Retry-After");

                var watch = Stopwatch.StartNew();
                var roles = await client.Roles.ListAsync();
                Assert.True(roles.Data.Count > 0, "the call succeeded");
                var statuses = string.Join(",", handler.Statuses.Select(x => x.ToString()).ToArray());
                Assert.True(handler.Statuses.First() == 429 && handler.Statuses.Last() == 200, "429 first, then 200: " + statuses);
                Assert.True(watch.ElapsedMilliseconds >= 500, "it waited for Retry-After (" + watch.ElapsedMilliseconds + " ms)");
            }
            lock (LogLines) Assert.True(LogLines.Any(l => l.Contains("after 429") && l.Contains("Retry-After")), "the retry was logged");
        }
    }
}
