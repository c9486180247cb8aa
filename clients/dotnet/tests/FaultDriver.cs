using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using Coldchain.Client.Models;
using Newtonsoft.Json;

namespace Coldchain.Client.Tests
{
    /// <summary>
    /// One call of the shared fault suite (test/clients/faults.e2e-spec.ts), as a user would make it:
    /// <c>mono Coldchain.Client.Tests.exe --fault list | create NAME | download REPORT_ID</c>. Reads
    /// COLDCHAIN_BASE_URL, COLDCHAIN_CLIENT_ID and COLDCHAIN_CLIENT_SECRET; the client has a 3 s timeout,
    /// 2 retries and a short backoff. Prints one JSON line: the outcome and the response metadata, or
    /// the error's family (the same words in every client).
    /// </summary>
    public static class FaultDriver
    {
        public static int Run(string[] args)
        {
            var result = RunAsync(args).GetAwaiter().GetResult();
            Console.WriteLine(JsonConvert.SerializeObject(result));
            return 0;
        }

        private static Dictionary<string, object> Outcome(ResponseInfo info)
        {
            return new Dictionary<string, object>
            {
                { "ok", true },
                { "status", info.Status },
                { "request_id", info.RequestId },
                { "replayed", info.IdempotentReplayed },
                { "idempotency_key", info.IdempotencyKey },
                { "rate_limit_remaining", info.RateLimitRemaining },
            };
        }

        private static async Task<Dictionary<string, object>> RunAsync(string[] args)
        {
            var options = new ClientOptions
            {
                BaseUrl = Environment.GetEnvironmentVariable("COLDCHAIN_BASE_URL"),
                ClientId = Environment.GetEnvironmentVariable("COLDCHAIN_CLIENT_ID"),
                ClientSecret = Environment.GetEnvironmentVariable("COLDCHAIN_CLIENT_SECRET"),
                Timeout = TimeSpan.FromSeconds(3),
                MaxRetries = 2,
                BackoffBase = TimeSpan.FromMilliseconds(10),
                BackoffMax = TimeSpan.FromMilliseconds(50),
                UserAgent = "fault-suite/1",
            };
            using (var client = new ColdchainClient(options))
            {
                try
                {
                    switch (args[0])
                    {
                        case "list":
                        {
                            var page = await client.Accounts.ListAsync();
                            var result = Outcome(page.LastResponse);
                            result["count"] = page.Data.Count;
                            return result;
                        }
                        case "create":
                        {
                            var carrier = await client.Carriers.CreateAsync(new CreateCarrier { Name = args[1], Mode = "road" });
                            var result = Outcome(carrier.LastResponse);
                            result["id"] = carrier.Id;
                            return result;
                        }
                        case "download":
                        {
                            var path = Path.Combine(Path.GetTempPath(), "fault-suite-" + Guid.NewGuid().ToString("N"));
                            try
                            {
                                using (var download = await client.Reports.DownloadAsync(args[1]))
                                {
                                    var bytes = await download.SaveToFileAsync(path);
                                    var result = Outcome(download.LastResponse);
                                    result["bytes"] = bytes;
                                    return result;
                                }
                            }
                            finally
                            {
                                if (File.Exists(path)) File.Delete(path);
                            }
                        }
                        default:
                            throw new ArgumentException("unknown operation " + args[0]);
                    }
                }
                catch (ColdchainApiException error)
                {
                    return new Dictionary<string, object> { { "ok", false }, { "error", Family(error) }, { "status", error.Status }, { "code", error.Code } };
                }
                catch (ColdchainConnectionException error)
                {
                    return new Dictionary<string, object> { { "ok", false }, { "error", error.TimedOut ? "timeout" : "connection" }, { "status", null }, { "code", null } };
                }
            }
        }

        private static string Family(ColdchainApiException error)
        {
            if (error is BadRequestException) return "bad_request";
            if (error is AuthenticationException) return "authentication";
            if (error is PermissionDeniedException) return "permission";
            if (error is NotFoundException) return "not_found";
            if (error is ConflictException) return "conflict";
            if (error is UnprocessableEntityException) return "unprocessable";
            if (error is RateLimitException) return "rate_limit";
            if (error is ServerException) return "server";
            return "other";
        }
    }
}
