using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Coldchain.Client.Tests
{
    /// <summary>What a handler saw of one request.</summary>
    public sealed class SeenRequest
    {
        public string Method;
        public Uri Uri;
        public string Body;
        public CancellationToken Cancellation;
        public Dictionary<string, string> Headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);

        public string Header(string name)
        {
            string value;
            return Headers.TryGetValue(name, out value) ? value : null;
        }
    }

    /// <summary>A scripted service: answers each request with the next reply function.</summary>
    public sealed class FakeHandler : HttpMessageHandler
    {
        private readonly Func<SeenRequest, int, Task<HttpResponseMessage>> reply;
        public readonly List<SeenRequest> Seen = new List<SeenRequest>();
        private int apiCalls;

        public FakeHandler(Func<SeenRequest, int, Task<HttpResponseMessage>> reply)
        {
            this.reply = reply;
        }

        public int TokenRequests
        {
            get { return Seen.Count(s => s.Uri.AbsolutePath.EndsWith("/oauth/token/", StringComparison.Ordinal)); }
        }

        public List<SeenRequest> ApiRequests
        {
            get { return Seen.Where(s => !s.Uri.AbsolutePath.EndsWith("/oauth/token/", StringComparison.Ordinal)).ToList(); }
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var seen = new SeenRequest { Method = request.Method.Method, Uri = request.RequestUri, Cancellation = cancellationToken };
            foreach (var header in request.Headers) seen.Headers[header.Key] = string.Join(",", header.Value.ToArray());
            if (request.Content != null) seen.Body = await request.Content.ReadAsStringAsync().ConfigureAwait(false);
            lock (Seen) Seen.Add(seen);
            if (seen.Uri.AbsolutePath.EndsWith("/oauth/token/", StringComparison.Ordinal))
            {
                var n = TokenRequests;
                return Json(200, "{\"access_token\":\"tok-" + n + "-secretish\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"scope\":\"devices:read\"}");
            }
            var call = Interlocked.Increment(ref apiCalls);
            var response = await reply(seen, call).ConfigureAwait(false);
            response.RequestMessage = request;
            cancellationToken.ThrowIfCancellationRequested();
            return response;
        }

        public static HttpResponseMessage Json(int status, string body, string contentType = "application/json")
        {
            var response = new HttpResponseMessage((HttpStatusCode)status) { Content = new StringContent(body, Encoding.UTF8) };
            response.Content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue(contentType);
            response.Headers.TryAddWithoutValidation("X-Request-ID", "req-" + status);
            return response;
        }

        public static HttpResponseMessage Problem(int status, string code, string detail = null, string retryAfter = null)
        {
            var response = Json(status, "{\"type\":\"about:blank\",\"title\":\"Problem " + status + "\",\"status\":" + status + ",\"code\":\"" + code + "\"" + (detail != null ? ",\"detail\":\"" + detail + "\"" : "") + "}", "application/problem+json");
            if (retryAfter != null) response.Headers.TryAddWithoutValidation("Retry-After", retryAfter);
            return response;
        }

        public static ColdchainClient Client(FakeHandler handler, Action<ClientOptions> configure = null)
        {
            var options = new ClientOptions
            {
                BaseUrl = "https://api.example.test",
                ClientId = "client-1",
                ClientSecret = "s3cr3t-value-never-shown",
                HttpMessageHandler = handler,
                Timeout = TimeSpan.FromSeconds(5),
            };
            if (configure != null) configure(options);
            return new ColdchainClient(options);
        }
    }
}
