using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using Coldchain.Client.Internal;

namespace Coldchain.Client.Webhooks
{
    /// <summary>Header names of the Standard Webhooks format (endpoints whose signature format is <c>standard-webhooks</c>).</summary>
    public static class StandardWebhookHeaders
    {
        public const string Id = "webhook-id";
        public const string Timestamp = "webhook-timestamp";
        public const string Signature = "webhook-signature";
    }

    /// <summary>
    /// Verifies requests in the Standard Webhooks format (standardwebhooks.com): <c>webhook-signature</c> is
    /// a space-separated list of <c>v1,</c> + base64 HMAC-SHA256 of <c>{webhook-id}.{webhook-timestamp}.{raw body}</c>
    /// (two during a secret rotation window), keyed with the bytes of the <c>whsec_</c> secret's base64.
    /// Accepts any of the given secrets, a timestamp within the tolerance (at most 300 s), compares in
    /// constant time, checks that <c>webhook-id</c> is the body's id; then parses the event.
    /// </summary>
    public sealed class StandardWebhookVerifier
    {
        private const string Prefix = "whsec_";
        private readonly List<byte[]> keys;
        private TimeSpan tolerance = SignatureChecks.MaxTolerance;

        public StandardWebhookVerifier(params string[] secrets)
        {
            if (secrets == null || secrets.Length == 0 || secrets.Any(string.IsNullOrEmpty)) throw new ArgumentException("at least one non-empty signing secret is required", "secrets");
            keys = secrets.Select(Key).ToList();
            Clock = () => DateTimeOffset.UtcNow;
        }

        /// <summary>Largest accepted difference between <c>webhook-timestamp</c> and the clock: more than 0 and at most 300 s (the default); anything else is refused (ArgumentOutOfRangeException).</summary>
        public TimeSpan Tolerance
        {
            get { return tolerance; }
            set { tolerance = SignatureChecks.CheckTolerance(value); }
        }

        /// <summary>The clock (tests).</summary>
        public Func<DateTimeOffset> Clock { get; set; }

        /// <summary>Verifies and parses; throws <see cref="WebhookVerificationException"/> when the request must be rejected.</summary>
        /// <param name="rawBody">The exact bytes received (not re-serialized JSON).</param>
        /// <param name="header">Header lookup by name (case-insensitive), e.g. <c>name => Request.Headers[name]</c>.</param>
        public WebhookEvent Verify(byte[] rawBody, Func<string, string> header)
        {
            if (rawBody == null) throw new ArgumentNullException("rawBody");
            if (header == null) throw new ArgumentNullException("header");
            var id = header(StandardWebhookHeaders.Id);
            var timestamp = header(StandardWebhookHeaders.Timestamp);
            var signature = header(StandardWebhookHeaders.Signature);
            if (string.IsNullOrEmpty(id)) throw new WebhookVerificationException("missing " + StandardWebhookHeaders.Id);
            SignatureChecks.CheckTimestamp(timestamp, StandardWebhookHeaders.Timestamp, Clock(), Tolerance);
            if (string.IsNullOrEmpty(signature)) throw new WebhookVerificationException("missing " + StandardWebhookHeaders.Signature);
            var received = signature.Split(' ').Where(s => s.StartsWith("v1,", StringComparison.Ordinal)).ToList();
            SignatureChecks.RequireMatch(keys.Select(key => SignWithKey(key, id, timestamp, rawBody)), received);
            var parsed = WebhookVerifier.Parse(rawBody, header);
            if (parsed.Id != id) throw new WebhookVerificationException(StandardWebhookHeaders.Id + " does not match the body");
            return parsed;
        }

        /// <summary>Verify with the headers in a dictionary (names compared case-insensitively).</summary>
        public WebhookEvent Verify(byte[] rawBody, IDictionary<string, string> headers)
        {
            if (headers == null) throw new ArgumentNullException("headers");
            return Verify(rawBody, name => headers.Where(h => string.Equals(h.Key, name, StringComparison.OrdinalIgnoreCase)).Select(h => h.Value).FirstOrDefault());
        }

        /// <summary>One <c>v1,</c> entry of <c>webhook-signature</c> for a body (for tests and local tools).</summary>
        public static string Sign(string secret, string id, string timestamp, byte[] rawBody)
        {
            return SignWithKey(Key(secret), id, timestamp, rawBody);
        }

        /// <summary>The HMAC key of a <c>whsec_</c> secret: the bytes its base64 encodes (standard or URL-safe alphabet).</summary>
        private static byte[] Key(string secret)
        {
            var encoded = secret.StartsWith(Prefix, StringComparison.Ordinal) ? secret.Substring(Prefix.Length) : secret;
            encoded = encoded.Replace('-', '+').Replace('_', '/').TrimEnd('=');
            encoded += new string('=', (4 - encoded.Length % 4) % 4);
            try
            {
                var key = Convert.FromBase64String(encoded);
                if (key.Length == 0) throw new ArgumentException("a signing secret is empty", "secret");
                return key;
            }
            catch (FormatException)
            {
                throw new ArgumentException("a Standard Webhooks secret is whsec_ followed by base64", "secret");
            }
        }

        private static string SignWithKey(byte[] key, string id, string timestamp, byte[] rawBody)
        {
            using (var hmac = new HMACSHA256(key))
            {
                var prefix = Encoding.UTF8.GetBytes(id + "." + timestamp + ".");
                hmac.TransformBlock(prefix, 0, prefix.Length, null, 0);
                hmac.TransformFinalBlock(rawBody, 0, rawBody.Length);
                return "v1," + Convert.ToBase64String(hmac.Hash);
            }
        }
    }
}
