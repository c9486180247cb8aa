using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Coldchain.Client.Models;

namespace Coldchain.Client.Internal
{
    /// <summary>Query string parameters of one call; null values are left out.</summary>
    public sealed class QueryBuilder
    {
        private readonly List<KeyValuePair<string, string>> pairs = new List<KeyValuePair<string, string>>();

        public void Add(string name, string value)
        {
            if (value != null) pairs.Add(new KeyValuePair<string, string>(name, value));
        }

        public void Add(string name, long? value)
        {
            if (value.HasValue) Add(name, value.Value.ToString(CultureInfo.InvariantCulture));
        }

        public void Add(string name, int? value)
        {
            if (value.HasValue) Add(name, value.Value.ToString(CultureInfo.InvariantCulture));
        }

        public void Add(string name, bool? value)
        {
            if (value.HasValue) Add(name, value.Value ? "true" : "false");
        }

        public void Add(string name, DateTimeOffset? value)
        {
            if (value.HasValue) Add(name, Json.FormatDate(value.Value));
        }

        public override string ToString()
        {
            if (pairs.Count == 0) return "";
            return "?" + string.Join("&", pairs.Select(p => Uri.EscapeDataString(p.Key) + "=" + Uri.EscapeDataString(p.Value)).ToArray());
        }
    }

    /// <summary>One API call as the generated services describe it.</summary>
    public sealed class ApiRequest
    {
        public ApiRequest(string method, string path, QueryBuilder query, RequestOptions options)
        {
            Method = method;
            Path = path;
            Query = query ?? new QueryBuilder();
            Options = options ?? new RequestOptions();
        }

        public string Method { get; private set; }

        /// <summary>Relative to the API root (no leading slash), or an absolute URL (links.next).</summary>
        public string Path { get; private set; }

        public QueryBuilder Query { get; private set; }

        public RequestOptions Options { get; private set; }

        public string OperationId { get; set; }

        public object Body { get; set; }

        /// <summary>Send Body as application/x-www-form-urlencoded (the token exchange).</summary>
        public bool Form { get; set; }

        /// <summary>A record-creating POST: carries an Idempotency-Key.</summary>
        public bool Idempotent { get; set; }

        /// <summary>No access token (the token exchange, the index, the schema).</summary>
        public bool Anonymous { get; set; }

        internal string AbsoluteUrl { get; set; }

        /// <summary>The Idempotency-Key the request went out with (set while it is sent).</summary>
        internal string SentIdempotencyKey { get; set; }
    }

    /// <summary>Base of the generated resource services.</summary>
    public abstract class ServiceBase
    {
        internal ServiceBase(ApiRequester requester)
        {
            Requester = requester;
        }

        internal ApiRequester Requester { get; private set; }

        /// <summary>Fills {name} placeholders of a path template with escaped values.</summary>
        protected static string Path(string template, params object[] pairs)
        {
            var path = template;
            for (var i = 0; i + 1 < pairs.Length; i += 2)
            {
                var value = pairs[i + 1];
                if (value == null) throw new ArgumentNullException((string)pairs[i]);
                var text = Convert.ToString(value, CultureInfo.InvariantCulture);
                if (text.Length == 0) throw new ArgumentException("must not be empty", (string)pairs[i]);
                path = path.Replace("{" + pairs[i] + "}", Uri.EscapeDataString(text));
            }
            return path;
        }
    }

    /// <summary>Sends requests: token, account header, idempotency key, retries, typed errors.</summary>
    public sealed class ApiRequester : IDisposable
    {
        // The retry rules of clients/README.md: 429 and 503 say the request was not carried out and are
        // retried for every request; 502 and 504 come from a gateway that may have passed it on, so only
        // what is safe to repeat is retried; 409 idempotency_request_in_progress always.
        private static readonly int[] RetryAlways = { 429, 503 };
        private static readonly int[] RetryIfRepeatable = { 502, 504 };

        private readonly ClientOptions options;
        private readonly HttpClient http;
        private readonly TokenCache tokens;
        private readonly Random jitter = new Random();

        internal ApiRequester(ClientOptions options)
        {
            if (string.IsNullOrEmpty(options.BaseUrl)) throw new ArgumentException("BaseUrl is required", "options");
            if (string.IsNullOrEmpty(options.ClientId)) throw new ArgumentException("ClientId is required", "options");
            if (string.IsNullOrEmpty(options.ClientSecret)) throw new ArgumentException("ClientSecret is required", "options");
            this.options = options;
            BaseUri = NormalizeBase(options.BaseUrl);
            ClientId = options.ClientId;
            AccountId = options.AccountId;
            // the API never redirects; not following redirects keeps the token on the configured host
            http = new HttpClient(options.HttpMessageHandler ?? new HttpClientHandler { AllowAutoRedirect = false }, true);
            http.Timeout = System.Threading.Timeout.InfiniteTimeSpan;
            tokens = new TokenCache(this, options);
        }

        private ApiRequester(ApiRequester parent, string accountId)
        {
            options = parent.options;
            http = parent.http;
            tokens = parent.tokens;
            BaseUri = parent.BaseUri;
            ClientId = parent.ClientId;
            AccountId = accountId;
        }

        public Uri BaseUri { get; private set; }

        public string ClientId { get; private set; }

        public string AccountId { get; private set; }

        internal ApiRequester WithAccount(string accountId)
        {
            return new ApiRequester(this, accountId);
        }

        private static Uri NormalizeBase(string baseUrl)
        {
            var text = baseUrl.TrimEnd('/');
            if (!text.EndsWith(Operations.PathPrefix, StringComparison.Ordinal)) text += Operations.PathPrefix;
            return new Uri(text + "/", UriKind.Absolute);
        }

        public async Task<T> SendAsync<T>(ApiRequest request, CancellationToken cancellationToken)
        {
            return (await SendWithResponseAsync<T>(request, cancellationToken).ConfigureAwait(false)).Item1;
        }

        /// <summary>The body and the response it came in; a model's LastResponse is set.</summary>
        internal async Task<Tuple<T, ResponseInfo>> SendWithResponseAsync<T>(ApiRequest request, CancellationToken cancellationToken)
        {
            using (var response = await ExecuteAsync(request, false, cancellationToken).ConfigureAwait(false))
            {
                var text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                var info = ResponseInfo.From(response, request.SentIdempotencyKey);
                var body = Json.Deserialize<T>(text);
                var model = body as ApiObject;
                if (model != null) model.LastResponse = info;
                return Tuple.Create(body, info);
            }
        }

        public async Task SendAsync(ApiRequest request, CancellationToken cancellationToken)
        {
            using (await ExecuteAsync(request, false, cancellationToken).ConfigureAwait(false))
            {
            }
        }

        public async Task<Page<T>> GetPageAsync<T>(ApiRequest request, CancellationToken cancellationToken)
        {
            var answer = await SendWithResponseAsync<PageBody<T>>(request, cancellationToken).ConfigureAwait(false);
            var body = answer.Item1;
            return new Page<T>(this, request.Options, body.Data ?? new List<T>(), body.Links != null ? body.Links.Next : null) { LastResponse = answer.Item2 };
        }

        internal Task<Page<T>> GetNextPageAsync<T>(string nextUrl, RequestOptions requestOptions, CancellationToken cancellationToken)
        {
            var request = new ApiRequest("GET", nextUrl, null, requestOptions) { OperationId = "next page", AbsoluteUrl = ResolveNext(nextUrl) };
            return GetPageAsync<T>(request, cancellationToken);
        }

        /// <summary>
        /// links.next is absolute. It is followed as given when it points at this client's host;
        /// otherwise (a proxy, a misconfigured PUBLIC_BASE_URL) its path below /api/public/v1/ and its
        /// query are taken relative to this client's base URL, so the token never goes to another host.
        /// </summary>
        internal string ResolveNext(string next)
        {
            Uri uri;
            if (!Uri.TryCreate(next, UriKind.Absolute, out uri)) return new Uri(BaseUri, next.TrimStart('/')).ToString();
            if (Uri.Compare(uri, BaseUri, UriComponents.SchemeAndServer, UriFormat.UriEscaped, StringComparison.OrdinalIgnoreCase) == 0) return uri.ToString();
            var pathAndQuery = uri.PathAndQuery;
            var at = pathAndQuery.IndexOf(Operations.PathPrefix + "/", StringComparison.Ordinal);
            var relative = at >= 0 ? pathAndQuery.Substring(at + Operations.PathPrefix.Length + 1) : pathAndQuery.TrimStart('/');
            return new Uri(BaseUri, relative).ToString();
        }

        public async Task<FileDownload> DownloadAsync(ApiRequest request, CancellationToken cancellationToken)
        {
            var response = await ExecuteAsync(request, true, cancellationToken).ConfigureAwait(false);
            try
            {
                var stream = await response.Content.ReadAsStreamAsync().ConfigureAwait(false);
                return new FileDownload(response, stream, request.Options.Timeout ?? options.Timeout);
            }
            catch
            {
                response.Dispose();
                throw;
            }
        }

        internal void Log(string line)
        {
            var logger = options.Logger;
            if (logger == null) return;
            try
            {
                logger("[coldchain] " + line);
            }
            catch
            {
                // a failing log sink must not fail the call
            }
        }

        /// <summary>Runs the request with retries; returns a successful response or throws.</summary>
        internal async Task<HttpResponseMessage> ExecuteAsync(ApiRequest request, bool streamBody, CancellationToken cancellationToken)
        {
            var idempotencyKey = request.Idempotent ? (request.Options.IdempotencyKey ?? NewIdempotencyKey()) : null;
            request.SentIdempotencyKey = idempotencyKey;
            var maxRetries = Math.Max(0, request.Options.MaxRetries ?? options.MaxRetries);
            var timeout = request.Options.Timeout ?? options.Timeout;
            var url = request.AbsoluteUrl ?? new Uri(BaseUri, request.Path + request.Query).ToString();
            var display = request.Method + " " + new Uri(url).AbsolutePath;
            // A POST that is not a create (shipment completion) is not repeated after a timeout or a
            // broken connection: the first attempt may have done the work.
            var repeatableOnFailure = request.Method != "POST" || request.Idempotent || request.Form;
            var watch = Stopwatch.StartNew();
            var waited = TimeSpan.Zero;
            var refreshedToken = false;
            var retries = 0;
            for (var attempt = 1; ; attempt++)
            {
                string token = null;
                if (!request.Anonymous) token = await tokens.GetAsync(cancellationToken).ConfigureAwait(false);
                HttpResponseMessage response = null;
                Exception failure = null;
                var timedOut = false;
                var started = watch.Elapsed;
                using (var message = BuildMessage(request, url, token, idempotencyKey))
                using (var timeoutSource = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
                {
                    timeoutSource.CancelAfter(timeout);
                    try
                    {
                        response = await http.SendAsync(message, streamBody ? HttpCompletionOption.ResponseHeadersRead : HttpCompletionOption.ResponseContentRead, timeoutSource.Token).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException error)
                    {
                        if (cancellationToken.IsCancellationRequested) throw;
                        failure = error;
                        timedOut = true;
                    }
                    catch (HttpRequestException error)
                    {
                        failure = error;
                    }
                }
                var elapsedMs = (long)(watch.Elapsed - started).TotalMilliseconds;
                if (response == null)
                {
                    var what = timedOut ? "timed out after " + (long)timeout.TotalMilliseconds + " ms" : "connection failed (" + Describe(failure) + ")";
                    Log(display + " attempt " + attempt + " " + what);
                    var delay = Backoff(retries);
                    if (repeatableOnFailure && retries < maxRetries && CanWait(delay, waited))
                    {
                        retries++;
                        waited += delay;
                        Log(display + " retry " + retries + "/" + maxRetries + " in " + (long)delay.TotalMilliseconds + " ms");
                        await Task.Delay(delay, cancellationToken).ConfigureAwait(false);
                        continue;
                    }
                    throw new ColdchainConnectionException(display + ": " + what + (retries > 0 ? " (after " + retries + " retries)" : ""), failure, timedOut);
                }

                var status = (int)response.StatusCode;
                var requestId = Header(response, "X-Request-ID");
                Log(display + " attempt " + attempt + " -> " + status + " in " + elapsedMs + " ms" + (requestId != null ? " request_id=" + requestId : ""));
                if (status >= 200 && status < 300) return response;

                if (status == 401 && !request.Anonymous && !refreshedToken)
                {
                    // the token expired early or was revoked: one fresh token, one more try
                    refreshedToken = true;
                    tokens.Invalidate(token);
                    response.Dispose();
                    Log(display + " got 401: refreshing the access token once");
                    continue;
                }

                var retryAfter = RetryAfter(response);
                ColdchainApiException answered;
                using (response)
                {
                    answered = await ErrorFrom(response, request, retryAfter).ConfigureAwait(false);
                }
                var retryable = Array.IndexOf(RetryAlways, status) >= 0
                    || (Array.IndexOf(RetryIfRepeatable, status) >= 0 && repeatableOnFailure)
                    || (status == 409 && answered.Code == "idempotency_request_in_progress");
                if (retryable && retries < maxRetries)
                {
                    var delay = retryAfter ?? Backoff(retries);
                    if (delay <= options.MaxRetryDelay && CanWait(delay, waited))
                    {
                        retries++;
                        waited += delay;
                        Log(display + " retry " + retries + "/" + maxRetries + " after " + status + " " + answered.Code + " in " + (long)delay.TotalMilliseconds + " ms" + (retryAfter.HasValue ? " (Retry-After)" : ""));
                        await Task.Delay(delay, cancellationToken).ConfigureAwait(false);
                        continue;
                    }
                }
                throw answered;
            }
        }

        private bool CanWait(TimeSpan delay, TimeSpan waited)
        {
            return waited + delay <= options.MaxRetryTime;
        }

        private static string Describe(Exception error)
        {
            var inner = error;
            while (inner.InnerException != null) inner = inner.InnerException;
            return inner.GetType().Name + ": " + inner.Message;
        }

        private TimeSpan Backoff(int retries)
        {
            // exponential backoff with full jitter: up to BackoffBase · 2^n (0.5 s, 1 s, 2 s, ...) capped at BackoffMax (8 s)
            var cap = Math.Min(options.BackoffMax.TotalMilliseconds, options.BackoffBase.TotalMilliseconds * Math.Pow(2, retries));
            double factor;
            lock (jitter) factor = jitter.NextDouble();
            return TimeSpan.FromMilliseconds(cap * factor);
        }

        private HttpRequestMessage BuildMessage(ApiRequest request, string url, string token, string idempotencyKey)
        {
            var message = new HttpRequestMessage(new HttpMethod(request.Method), url);
            message.Headers.Accept.ParseAdd("application/json");
            message.Headers.TryAddWithoutValidation("User-Agent", "coldchain-dotnet/" + ClientVersion.Value + (options.UserAgent != null ? " " + options.UserAgent : ""));
            if (token != null) message.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
            var account = request.Options.AccountId ?? AccountId;
            if (account != null && !request.Anonymous) message.Headers.TryAddWithoutValidation("X-Service-Account-ID", account);
            if (idempotencyKey != null) message.Headers.TryAddWithoutValidation("Idempotency-Key", idempotencyKey);
            if (request.Options.RequestId != null) message.Headers.TryAddWithoutValidation("X-Request-ID", request.Options.RequestId);
            if (request.Body != null)
            {
                if (request.Form)
                {
                    var fields = JObject.FromObject(request.Body, Json.Serializer).Properties()
                        .Where(p => p.Value.Type != JTokenType.Null)
                        .Select(p => new KeyValuePair<string, string>(p.Name, p.Value.ToString()));
                    message.Content = new FormUrlEncodedContent(fields);
                }
                else
                {
                    message.Content = new StringContent(Json.Serialize(request.Body), Encoding.UTF8, "application/json");
                }
            }
            return message;
        }

        private static string Header(HttpResponseMessage response, string name)
        {
            IEnumerable<string> values;
            if (response.Headers.TryGetValues(name, out values)) return values.FirstOrDefault();
            if (response.Content != null && response.Content.Headers.TryGetValues(name, out values)) return values.FirstOrDefault();
            return null;
        }

        private static TimeSpan? RetryAfter(HttpResponseMessage response)
        {
            var value = Header(response, "Retry-After");
            if (value == null) return null;
            double seconds;
            if (double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)) return TimeSpan.FromSeconds(Math.Max(0, seconds));
            DateTimeOffset date;
            if (DateTimeOffset.TryParse(value, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out date))
            {
                var delay = date - DateTimeOffset.UtcNow;
                return delay > TimeSpan.Zero ? delay : TimeSpan.Zero;
            }
            return null;
        }

        private static async Task<ColdchainApiException> ErrorFrom(HttpResponseMessage response, ApiRequest request, TimeSpan? retryAfter)
        {
            var status = (int)response.StatusCode;
            var requestId = Header(response, "X-Request-ID");
            string text = null;
            try
            {
                text = response.Content != null ? await response.Content.ReadAsStringAsync().ConfigureAwait(false) : null;
            }
            catch (Exception)
            {
                // the status line is enough
            }
            JObject body = null;
            try
            {
                if (!string.IsNullOrEmpty(text)) body = JsonConvert.DeserializeObject(text, Json.Settings) as JObject;
            }
            catch (JsonException)
            {
                // not JSON (a proxy's HTML page): keep status and reason
            }
            string path;
            try
            {
                path = response.RequestMessage != null ? response.RequestMessage.RequestUri.AbsolutePath.TrimStart('/') : request.Path;
            }
            catch (Exception)
            {
                path = request.Path;
            }
            if (body == null)
            {
                return ColdchainApiException.For(status, null, response.ReasonPhrase, null, null, requestId, retryAfter: retryAfter, method: request.Method, path: path);
            }
            if (body["error"] != null && body["code"] == null)
            {
                // RFC 6749 §5.2 (token endpoint)
                return ColdchainApiException.For(status, (string)body["error"], response.ReasonPhrase, (string)body["error_description"], null, requestId, retryAfter: retryAfter, method: request.Method, path: path);
            }
            var problem = body.ToObject<ProblemDetails>(Json.Serializer);
            return ColdchainApiException.For(status, problem.Code, problem.Title, problem.Detail, problem.Errors, requestId, problem.Type, problem.Instance, problem.ErrorId, retryAfter, request.Method, path);
        }

        /// <summary>A random 32-character key (hex), within the service's 8–128 visible ASCII characters.</summary>
        public static string NewIdempotencyKey()
        {
            var bytes = new byte[16];
            using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(bytes);
            return BitConverter.ToString(bytes).Replace("-", "").ToLowerInvariant();
        }

        public void Dispose()
        {
            http.Dispose();
        }

        internal sealed class PageBody<T>
        {
            [JsonProperty("data")]
            public List<T> Data { get; set; }

            [JsonProperty("links")]
            public PageLinks Links { get; set; }
        }
    }

    /// <summary>The cached access token: fetched on first use, replaced shortly before it expires, dropped on a 401.</summary>
    internal sealed class TokenCache
    {
        private readonly ApiRequester requester;
        private readonly ClientOptions options;
        private readonly SemaphoreSlim gate = new SemaphoreSlim(1, 1);
        private CachedToken cached;

        /// <summary>Token and renewal time, replaced together (never torn between threads).</summary>
        private sealed class CachedToken
        {
            public CachedToken(string value, DateTimeOffset renewAt)
            {
                Value = value;
                RenewAt = renewAt;
            }

            public string Value { get; private set; }

            public DateTimeOffset RenewAt { get; private set; }
        }

        internal TokenCache(ApiRequester requester, ClientOptions options)
        {
            this.requester = requester;
            this.options = options;
        }

        public async Task<string> GetAsync(CancellationToken cancellationToken)
        {
            var current = Volatile.Read(ref cached);
            if (current != null && DateTimeOffset.UtcNow < current.RenewAt) return current.Value;
            await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                current = Volatile.Read(ref cached);
                if (current != null && DateTimeOffset.UtcNow < current.RenewAt) return current.Value;
                var body = new TokenRequest
                {
                    GrantType = TokenRequest.GrantTypeValues.ClientCredentials,
                    ClientId = options.ClientId,
                    ClientSecret = options.ClientSecret,
                    Scope = options.Scopes != null && options.Scopes.Count > 0 ? string.Join(" ", options.Scopes.ToArray()) : null,
                };
                var request = new ApiRequest("POST", "oauth/token/", null, null) { OperationId = "TokenController_token", Body = body, Form = true, Anonymous = true };
                var response = await requester.SendAsync<TokenResponse>(request, cancellationToken).ConfigureAwait(false);
                var lifetime = TimeSpan.FromSeconds(response.ExpiresIn);
                var margin = TimeSpan.FromTicks(Math.Min(options.TokenRefreshMargin.Ticks, lifetime.Ticks / 10));
                Volatile.Write(ref cached, new CachedToken(response.AccessToken, DateTimeOffset.UtcNow + lifetime - margin));
                requester.Log("access token obtained (expires in " + (long)lifetime.TotalSeconds + " s, scopes: " + response.Scope + ")");
                return response.AccessToken;
            }
            finally
            {
                gate.Release();
            }
        }

        public void Invalidate(string stale)
        {
            var current = Volatile.Read(ref cached);
            if (current != null && current.Value == stale) Interlocked.CompareExchange(ref cached, null, current);
        }
    }
}
