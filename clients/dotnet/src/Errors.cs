using System;
using System.Collections.Generic;
using System.Linq;
using Coldchain.Client.Models;

namespace Coldchain.Client
{
    /// <summary>Base of every exception the client throws on purpose.</summary>
    public class ColdchainException : Exception
    {
        public ColdchainException(string message) : base(message)
        {
        }

        public ColdchainException(string message, Exception inner) : base(message, inner)
        {
        }
    }

    /// <summary>
    /// The service answered with an error (RFC 9457 problem details, or an RFC 6749 error from the
    /// token endpoint). Status, Code, Title, Detail, field Errors and the RequestId (X-Request-ID)
    /// say what went wrong; Code is stable and documented in the OpenAPI description.
    /// </summary>
    public class ColdchainApiException : ColdchainException
    {
        public ColdchainApiException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(Describe(status, code, title, detail, errors, requestId, method, path))
        {
            Status = status;
            Code = code;
            Title = title;
            Detail = detail;
            Errors = (errors ?? new List<FieldError>()).ToList().AsReadOnly();
            RequestId = requestId;
            Type = type;
            Instance = instance;
            ErrorId = errorId;
            RetryAfter = retryAfter;
        }

        /// <summary>HTTP status code.</summary>
        public int Status { get; private set; }

        /// <summary>Stable machine-readable code, e.g. not_found, validation_failed, shipment_not_active, invalid_client.</summary>
        public string Code { get; private set; }

        public string Title { get; private set; }

        public string Detail { get; private set; }

        /// <summary>Per-field problems of a validation_failed error (empty otherwise).</summary>
        public IReadOnlyList<FieldError> Errors { get; private set; }

        /// <summary>X-Request-ID of the response: quote it to support.</summary>
        public string RequestId { get; private set; }

        /// <summary>Problem type URI.</summary>
        public string Type { get; private set; }

        public string Instance { get; private set; }

        /// <summary>Identifier of an internal error (500), when the service gave one.</summary>
        public string ErrorId { get; private set; }

        /// <summary>Retry-After of a 429/503 that was not (or no longer) retried.</summary>
        public TimeSpan? RetryAfter { get; private set; }

        /// <summary>The exception of a status: a subclass per family (400, 401, 403, 404, 409, 422, 429, 5xx), this class otherwise.</summary>
        public static ColdchainApiException For(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
        {
            switch (status)
            {
                case 400: return new BadRequestException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
                case 401: return new AuthenticationException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
                case 403: return new PermissionDeniedException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
                case 404: return new NotFoundException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
                case 409: return new ConflictException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
                case 422: return new UnprocessableEntityException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
                case 429: return new RateLimitException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
            }
            if (status >= 500) return new ServerException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
            return new ColdchainApiException(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path);
        }

        private static string Describe(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string method, string path)
        {
            var text = (method != null ? method + " /" + path + ": " : "") + status + " " + (code ?? "error") + ": " + (detail ?? title ?? "request failed");
            if (errors != null && errors.Count > 0)
            {
                text += " [" + string.Join("; ", errors.Select(e => e.Field + ": " + (e.Message ?? e.Code)).ToArray()) + "]";
            }
            if (requestId != null) text += " (request id " + requestId + ")";
            return text;
        }
    }

    /// <summary>400: malformed body, bad value or field (validation_failed), account_selection_required, a bad Idempotency-Key.</summary>
    public class BadRequestException : ColdchainApiException
    {
        public BadRequestException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>401: a missing, expired or invalid token, or (from the token endpoint) bad client credentials.</summary>
    public class AuthenticationException : ColdchainApiException
    {
        public AuthenticationException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>403: insufficient_scope, or account_not_allowed.</summary>
    public class PermissionDeniedException : ColdchainApiException
    {
        public PermissionDeniedException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>404: no such record in the selected account.</summary>
    public class NotFoundException : ColdchainApiException
    {
        public NotFoundException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>409: a state conflict (shipment_not_active, in_use, idempotency_request_in_progress after the retries...).</summary>
    public class ConflictException : ColdchainApiException
    {
        public ConflictException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>422: idempotency_key_reused (the same key with a different request).</summary>
    public class UnprocessableEntityException : ColdchainApiException
    {
        public UnprocessableEntityException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>429: rate limited, once the client's own retries are spent (RetryAfter says how long to wait).</summary>
    public class RateLimitException : ColdchainApiException
    {
        public RateLimitException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>5xx, once the client's own retries (where they apply) are spent; ErrorId identifies a 500 for support.</summary>
    public class ServerException : ColdchainApiException
    {
        public ServerException(int status, string code, string title, string detail, IList<FieldError> errors, string requestId, string type = null, string instance = null, string errorId = null, TimeSpan? retryAfter = null, string method = null, string path = null)
            : base(status, code, title, detail, errors, requestId, type, instance, errorId, retryAfter, method, path)
        {
        }
    }

    /// <summary>The service could not be reached, or did not answer in time, after the retries.</summary>
    public class ColdchainConnectionException : ColdchainException
    {
        public ColdchainConnectionException(string message, Exception inner, bool timedOut) : base(message, inner)
        {
            TimedOut = timedOut;
        }

        /// <summary>True when the last attempt ran into the configured timeout.</summary>
        public bool TimedOut { get; private set; }
    }
}
