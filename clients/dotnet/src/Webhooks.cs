using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using Newtonsoft.Json.Linq;
using Coldchain.Client.Internal;
using Coldchain.Client.Models;

namespace Coldchain.Client.Webhooks
{
    /// <summary>Header names of a webhook request.</summary>
    public static class WebhookHeaders
    {
        public const string Event = "X-Service-Event";
        public const string EventId = "X-Service-Event-ID";
        public const string DeliveryId = "X-Service-Delivery-ID";
        public const string Timestamp = "X-Service-Timestamp";
        public const string Signature = "X-Service-Signature";
    }

    /// <summary>Event types known to this version; others may be added at any time and are passed through.</summary>
    public static class WebhookEventTypes
    {
        public const string AlarmCreated = "alarm.created";
        public const string AlarmResolved = "alarm.resolved";
        public const string ShipmentCreated = "shipment.created";
        public const string ShipmentCompleted = "shipment.completed";
    }

    /// <summary>A verified webhook event. Unknown types are returned as this base class, never rejected.</summary>
    public class WebhookEvent
    {
        /// <summary>Event id (body id; equals the X-Service-Event-ID header): de-duplicate on it.</summary>
        public string Id { get; internal set; }

        public string Type { get; internal set; }

        public DateTimeOffset? CreatedAt { get; internal set; }

        /// <summary>The event's data object as received.</summary>
        public JObject Data { get; internal set; }

        /// <summary>X-Service-Delivery-ID (different on every attempt; diagnostics only).</summary>
        public string DeliveryId { get; internal set; }

        /// <summary>The whole envelope as received.</summary>
        public JObject Raw { get; internal set; }

        public override string ToString()
        {
            return GetType().Name + "(" + Type + ", " + Id + ")";
        }
    }

    /// <summary>alarm.created and alarm.resolved.</summary>
    public sealed class AlarmWebhookEvent : WebhookEvent
    {
        public Alarm Alarm { get; internal set; }
    }

    /// <summary>shipment.created and shipment.completed: the shipment as GET /shipments/{id}/ returns it.</summary>
    public sealed class ShipmentWebhookEvent : WebhookEvent
    {
        public Shipment Shipment { get; internal set; }
    }

    /// <summary>A webhook request that must be rejected (answer 400 or 401 and do not process it).</summary>
    public sealed class WebhookVerificationException : ColdchainException
    {
        public WebhookVerificationException(string message) : base(message)
        {
        }
    }

    /// <summary>
    /// Verifies webhook requests: <c>v1=</c> HMAC-SHA256 of <c>{timestamp}.{raw body}</c> with any of
    /// the given signing secrets (two during a rotation), a timestamp within the tolerance (300 s),
    /// constant-time comparison; then parses the event.
    /// </summary>
    public sealed class WebhookVerifier
    {
        private readonly List<string> secrets;
        private TimeSpan tolerance;

        public WebhookVerifier(params string[] secrets)
        {
            if (secrets == null || secrets.Length == 0 || secrets.Any(string.IsNullOrEmpty)) throw new ArgumentException("at least one non-empty signing secret is required", "secrets");
            this.secrets = secrets.ToList();
            Tolerance = SignatureChecks.MaxTolerance;
            Clock = () => DateTimeOffset.UtcNow;
        }

        /// <summary>Largest accepted difference between the timestamp header and the clock: 300 s (the default) or less; more is refused (ArgumentOutOfRangeException).</summary>
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
            var timestamp = header(WebhookHeaders.Timestamp);
            var signature = header(WebhookHeaders.Signature);
            SignatureChecks.CheckTimestamp(timestamp, WebhookHeaders.Timestamp, Clock(), Tolerance);
            if (string.IsNullOrEmpty(signature)) throw new WebhookVerificationException("missing " + WebhookHeaders.Signature);
            var received = signature.Split(new[] { ',', ' ' }, StringSplitOptions.RemoveEmptyEntries).Select(s => s.Trim()).ToList();
            SignatureChecks.RequireMatch(secrets.Select(secret => Sign(secret, timestamp, rawBody)), received);
            return Parse(rawBody, header);
        }

        /// <summary>Verify with the headers in a dictionary (names compared case-insensitively).</summary>
        public WebhookEvent Verify(byte[] rawBody, IDictionary<string, string> headers)
        {
            if (headers == null) throw new ArgumentNullException("headers");
            return Verify(rawBody, name => headers.Where(h => string.Equals(h.Key, name, StringComparison.OrdinalIgnoreCase)).Select(h => h.Value).FirstOrDefault());
        }

        /// <summary>Verify a body given as text (it is taken as UTF-8, which is what the service sends).</summary>
        public WebhookEvent Verify(string rawBody, IDictionary<string, string> headers)
        {
            return Verify(Encoding.UTF8.GetBytes(rawBody), headers);
        }

        /// <summary>Like Verify, without throwing.</summary>
        public bool TryVerify(byte[] rawBody, Func<string, string> header, out WebhookEvent webhookEvent, out string reason)
        {
            try
            {
                webhookEvent = Verify(rawBody, header);
                reason = null;
                return true;
            }
            catch (WebhookVerificationException error)
            {
                webhookEvent = null;
                reason = error.Message;
                return false;
            }
        }

        /// <summary>The signature header value for a body: <c>v1=</c> + lowercase hex HMAC-SHA256 of <c>{timestamp}.{body}</c>.</summary>
        public static string Sign(string secret, string timestamp, byte[] rawBody)
        {
            using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
            {
                var prefix = Encoding.UTF8.GetBytes(timestamp + ".");
                hmac.TransformBlock(prefix, 0, prefix.Length, null, 0);
                hmac.TransformFinalBlock(rawBody, 0, rawBody.Length);
                return "v1=" + BitConverter.ToString(hmac.Hash).Replace("-", "").ToLowerInvariant();
            }
        }

        /// <summary>Headers of a request signed like the service signs it (for tests and local tools).</summary>
        public static Dictionary<string, string> SignedHeaders(string secret, byte[] rawBody, string eventType, string eventId, DateTimeOffset? at = null)
        {
            var timestamp = (at ?? DateTimeOffset.UtcNow).ToUnixTimeSeconds().ToString(CultureInfo.InvariantCulture);
            return new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase)
            {
                { "Content-Type", "application/json; charset=utf-8" },
                { WebhookHeaders.Event, eventType },
                { WebhookHeaders.EventId, eventId },
                { WebhookHeaders.DeliveryId, Guid.NewGuid().ToString() },
                { WebhookHeaders.Timestamp, timestamp },
                { WebhookHeaders.Signature, Sign(secret, timestamp, rawBody) },
            };
        }

        internal static WebhookEvent Parse(byte[] rawBody, Func<string, string> header)
        {
            JObject envelope;
            try
            {
                envelope = Json.Deserialize<JObject>(Encoding.UTF8.GetString(rawBody));
            }
            catch (Newtonsoft.Json.JsonException)
            {
                throw new WebhookVerificationException("body is not a JSON object");
            }
            if (envelope == null) throw new WebhookVerificationException("body is not a JSON object");
            var type = (string)envelope["type"] ?? header(WebhookHeaders.Event);
            var data = envelope["data"] as JObject ?? new JObject();
            WebhookEvent result;
            if (type == WebhookEventTypes.AlarmCreated || type == WebhookEventTypes.AlarmResolved)
            {
                result = new AlarmWebhookEvent { Alarm = data.ToObject<Alarm>(Json.Serializer) };
            }
            else if (type == WebhookEventTypes.ShipmentCreated || type == WebhookEventTypes.ShipmentCompleted)
            {
                result = new ShipmentWebhookEvent { Shipment = data.ToObject<Shipment>(Json.Serializer) };
            }
            else
            {
                result = new WebhookEvent();
            }
            result.Id = (string)envelope["id"];
            if (result.Id == null) throw new WebhookVerificationException("body is not an event envelope (no id)");
            var eventId = header(WebhookHeaders.EventId);
            if (eventId != null && eventId != result.Id) throw new WebhookVerificationException(WebhookHeaders.EventId + " does not match the body's id");
            result.Type = type;
            DateTimeOffset created;
            var createdText = (string)envelope["created_at"];
            if (createdText != null && DateTimeOffset.TryParse(createdText, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out created)) result.CreatedAt = created;
            result.Data = data;
            result.DeliveryId = header(WebhookHeaders.DeliveryId);
            result.Raw = envelope;
            return result;
        }
    }
}
