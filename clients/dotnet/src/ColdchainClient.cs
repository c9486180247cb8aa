using System;
using System.Collections.Generic;
using System.Net.Http;
using Coldchain.Client.Internal;

namespace Coldchain.Client
{
    /// <summary>Settings of a <see cref="ColdchainClient"/>. Only BaseUrl, ClientId and ClientSecret are required.</summary>
    public sealed class ClientOptions
    {
        public ClientOptions()
        {
            Timeout = TimeSpan.FromSeconds(30);
            MaxRetries = 3;
            MaxRetryDelay = TimeSpan.FromSeconds(30);
            MaxRetryTime = TimeSpan.FromSeconds(60);
            BackoffBase = TimeSpan.FromMilliseconds(500);
            BackoffMax = TimeSpan.FromSeconds(8);
            TokenRefreshMargin = TimeSpan.FromSeconds(60);
        }

        /// <summary>The service address, e.g. https://coldchain.example.com (the /api/public/v1 prefix is added when missing).</summary>
        public string BaseUrl { get; set; }

        /// <summary>Client ID of the API credential.</summary>
        public string ClientId { get; set; }

        /// <summary>Client secret of the API credential. Never logged, never part of an exception message or ToString().</summary>
        public string ClientSecret { get; set; }

        /// <summary>Optional: narrows the token to these scopes (default: every scope of the credential).</summary>
        public IList<string> Scopes { get; set; }

        /// <summary>Optional: the account (tenant) to work in, sent as X-Service-Account-ID. Needed for credentials with several accounts; switchable per call with RequestOptions.AccountId or <see cref="ColdchainClient.WithAccount"/>.</summary>
        public string AccountId { get; set; }

        /// <summary>Timeout of one HTTP attempt (connection, headers and a JSON body); a download fails when its body stalls this long. Default 30 s.</summary>
        public TimeSpan Timeout { get; set; }

        /// <summary>Retries after connection errors, timeouts and lost responses (where a repeat is safe), 429, 502, 503, 504 and 409 idempotency_request_in_progress (rules: clients/README.md). Default 3; 0 disables retries.</summary>
        public int MaxRetries { get; set; }

        /// <summary>First backoff step (full jitter, doubling per retry) when the answer has no Retry-After. Default 0.5 s.</summary>
        public TimeSpan BackoffBase { get; set; }

        /// <summary>Largest backoff step. Default 8 s.</summary>
        public TimeSpan BackoffMax { get; set; }

        /// <summary>Longest single wait between attempts; a Retry-After longer than this is not waited for (the error is thrown). Default 30 s.</summary>
        public TimeSpan MaxRetryDelay { get; set; }

        /// <summary>Upper bound of the total time spent waiting to retry one call. Default 60 s.</summary>
        public TimeSpan MaxRetryTime { get; set; }

        /// <summary>A cached token is replaced this long before it expires (at most a tenth of its lifetime). Default 60 s.</summary>
        public TimeSpan TokenRefreshMargin { get; set; }

        /// <summary>Optional message handler (proxies, certificates, tests). The client owns and disposes it.</summary>
        public HttpMessageHandler HttpMessageHandler { get; set; }

        /// <summary>Optional log sink: one line per attempt, retry and token exchange. Lines never contain secrets or tokens.</summary>
        public Action<string> Logger { get; set; }

        /// <summary>Optional text appended to the SDK's own User-Agent (coldchain-dotnet/&lt;version&gt; &lt;yours&gt;).</summary>
        public string UserAgent { get; set; }

        public override string ToString()
        {
            return "ClientOptions(BaseUrl=" + BaseUrl + ", ClientId=" + ClientId + ", ClientSecret=[redacted], AccountId=" + (AccountId ?? "none") + ")";
        }
    }

    /// <summary>Per-call settings.</summary>
    public sealed class RequestOptions
    {
        /// <summary>The account for this call only (X-Service-Account-ID), overriding the client's.</summary>
        public string AccountId { get; set; }

        /// <summary>Idempotency-Key of a create (8–128 visible ASCII characters). Default: a new random key per call, reused on that call's own retries.</summary>
        public string IdempotencyKey { get; set; }

        /// <summary>Timeout of one attempt of this call.</summary>
        public TimeSpan? Timeout { get; set; }

        /// <summary>Retries of this call.</summary>
        public int? MaxRetries { get; set; }

        /// <summary>X-Request-ID to send (the service echoes a well-formed one and logs it).</summary>
        public string RequestId { get; set; }
    }

    /// <summary>
    /// The Cold Chain Telemetry API client. Thread-safe; create one and reuse it. The access token is
    /// fetched on first use, cached until shortly before it expires and refreshed once on a 401.
    /// </summary>
    public sealed partial class ColdchainClient : IDisposable
    {
        private readonly ApiRequester requester;
        private readonly bool ownsRequester;

        public ColdchainClient(string baseUrl, string clientId, string clientSecret, string accountId = null)
            : this(new ClientOptions { BaseUrl = baseUrl, ClientId = clientId, ClientSecret = clientSecret, AccountId = accountId })
        {
        }

        public ColdchainClient(ClientOptions options)
        {
            if (options == null) throw new ArgumentNullException("options");
            requester = new ApiRequester(options);
            ownsRequester = true;
            InitServices(requester);
        }

        private ColdchainClient(ApiRequester requester)
        {
            this.requester = requester;
            ownsRequester = false;
            InitServices(requester);
        }

        /// <summary>A client working in another account; it shares this client's connection and token cache (do not use it after disposing this one).</summary>
        public ColdchainClient WithAccount(string accountId)
        {
            return new ColdchainClient(requester.WithAccount(accountId));
        }

        /// <summary>The account this client sends in X-Service-Account-ID (null: none).</summary>
        public string AccountId
        {
            get { return requester.AccountId; }
        }

        /// <summary>The API root every path is relative to, ending with /api/public/v1/.</summary>
        public Uri BaseUri
        {
            get { return requester.BaseUri; }
        }

        public void Dispose()
        {
            if (ownsRequester) requester.Dispose();
        }

        public override string ToString()
        {
            return "ColdchainClient(" + requester.BaseUri + ", client " + requester.ClientId + (AccountId != null ? ", account " + AccountId : "") + ")";
        }
    }
}
