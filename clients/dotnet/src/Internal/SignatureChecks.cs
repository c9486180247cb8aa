using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using Coldchain.Client.Webhooks;

namespace Coldchain.Client.Internal
{
    /// <summary>The steps both webhook signature formats share: tolerance bounds, the timestamp check and the constant-time match.</summary>
    internal static class SignatureChecks
    {
        internal static readonly TimeSpan MaxTolerance = TimeSpan.FromSeconds(300);

        /// <summary>A tolerance is more than 0 and at most 300 s.</summary>
        internal static TimeSpan CheckTolerance(TimeSpan value)
        {
            if (value <= TimeSpan.Zero || value > MaxTolerance) throw new ArgumentOutOfRangeException("value", "the tolerance must be more than 0 and at most 300 seconds");
            return value;
        }

        /// <summary>Refuses a missing or malformed Unix-seconds header, or one further than the tolerance from the clock.</summary>
        internal static void CheckTimestamp(string timestamp, string headerName, DateTimeOffset now, TimeSpan tolerance)
        {
            if (string.IsNullOrEmpty(timestamp) || timestamp.Length > 12 || !timestamp.All(c => c >= '0' && c <= '9')) throw new WebhookVerificationException("missing or malformed " + headerName);
            var sent = long.Parse(timestamp, CultureInfo.InvariantCulture);
            if (Math.Abs(now.ToUnixTimeSeconds() - sent) > (long)tolerance.TotalSeconds) throw new WebhookVerificationException("timestamp outside the tolerance of " + (long)tolerance.TotalSeconds + " s");
        }

        /// <summary>Throws unless one received signature equals one expected; every pair is compared in full, in constant time.</summary>
        internal static void RequireMatch(IEnumerable<string> expected, IList<string> received)
        {
            var matched = false;
            foreach (var signature in expected)
            {
                foreach (var candidate in received) matched |= FixedTimeEquals(signature, candidate);
            }
            if (!matched) throw new WebhookVerificationException("signature does not match");
        }

        internal static bool FixedTimeEquals(string expected, string candidate)
        {
            var a = Encoding.ASCII.GetBytes(expected);
            var b = Encoding.ASCII.GetBytes(candidate);
            var difference = a.Length ^ b.Length;
            for (var i = 0; i < a.Length; i++) difference |= a[i] ^ (i < b.Length ? b[i] : 0);
            return difference == 0;
        }
    }
}
