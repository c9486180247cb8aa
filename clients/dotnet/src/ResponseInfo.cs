using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text.RegularExpressions;
using Newtonsoft.Json;

namespace Coldchain.Client
{
    /// <summary>
    /// What the client read from a successful response besides its body: status, X-Request-ID,
    /// Idempotent-Replayed, the rate-limit headers. Every result carries one (<c>LastResponse</c>).
    /// </summary>
    public sealed class ResponseInfo
    {
        internal ResponseInfo(int status, IDictionary<string, string> headers, string idempotencyKey)
        {
            Status = status;
            Headers = new Dictionary<string, string>(headers, StringComparer.OrdinalIgnoreCase);
            RequestId = Header("X-Request-ID");
            IdempotentReplayed = string.Equals(Header("Idempotent-Replayed"), "true", StringComparison.OrdinalIgnoreCase);
            IdempotencyKey = idempotencyKey;
            RateLimit = Header("RateLimit");
            RateLimitPolicy = Header("RateLimit-Policy");
            RateLimitRemaining = Parameter(RateLimit, "r");
            RateLimitReset = Parameter(RateLimit, "t");
        }

        /// <summary>HTTP status code.</summary>
        public int Status { get; private set; }

        /// <summary>X-Request-ID: quote it to support.</summary>
        public string RequestId { get; private set; }

        /// <summary>Idempotent-Replayed: true — a create answered from the stored first response.</summary>
        public bool IdempotentReplayed { get; private set; }

        /// <summary>The Idempotency-Key a create was sent with (generated unless given).</summary>
        public string IdempotencyKey { get; private set; }

        /// <summary>The RateLimit header (IETF draft), e.g. "per-credential";r=118;t=42.</summary>
        public string RateLimit { get; private set; }

        /// <summary>The RateLimit-Policy header, e.g. "per-credential";q=120;w=60.</summary>
        public string RateLimitPolicy { get; private set; }

        /// <summary>Requests left in the current window (r= of RateLimit).</summary>
        public long? RateLimitRemaining { get; private set; }

        /// <summary>Seconds until the window resets (t= of RateLimit).</summary>
        public long? RateLimitReset { get; private set; }

        /// <summary>Every response header (names case-insensitive; repeated headers joined with ", ").</summary>
        public IReadOnlyDictionary<string, string> Headers { get; private set; }

        private string Header(string name)
        {
            string value;
            return Headers.TryGetValue(name, out value) ? value : null;
        }

        private static long? Parameter(string header, string name)
        {
            if (header == null) return null;
            var match = Regex.Match(header, "(?:^|;)\\s*" + name + "=(\\d+)");
            long value;
            return match.Success && long.TryParse(match.Groups[1].Value, NumberStyles.None, CultureInfo.InvariantCulture, out value) ? value : (long?)null;
        }

        internal static ResponseInfo From(HttpResponseMessage response, string idempotencyKey)
        {
            var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            foreach (var header in response.Headers) headers[header.Key] = string.Join(", ", header.Value.ToArray());
            if (response.Content != null)
            {
                foreach (var header in response.Content.Headers) headers[header.Key] = string.Join(", ", header.Value.ToArray());
            }
            return new ResponseInfo((int)response.StatusCode, headers, idempotencyKey);
        }

        public override string ToString()
        {
            return "ResponseInfo(" + Status + ", request id " + (RequestId ?? "none") + (IdempotentReplayed ? ", replayed" : "") + ")";
        }
    }
}

namespace Coldchain.Client.Models
{
    /// <summary>Base of every model the service answers with: the response it came in is under <see cref="LastResponse"/>.</summary>
    public abstract class ApiObject
    {
        /// <summary>The response this object was read from (null for objects you build yourself).</summary>
        [JsonIgnore]
        public ResponseInfo LastResponse { get; internal set; }
    }
}
