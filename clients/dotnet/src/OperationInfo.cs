using System.Collections.Generic;

namespace Coldchain.Client
{
    /// <summary>One operation of the API and the client method(s) that call it (see Operations.All).</summary>
    public sealed class OperationInfo
    {
        public OperationInfo(string operationId, string method, string path, string tag, string service, string[] clientMethods, bool idempotent, string[] scopes)
        {
            OperationId = operationId;
            Method = method;
            Path = path;
            Tag = tag;
            Service = service;
            ClientMethods = clientMethods;
            Idempotent = idempotent;
            Scopes = scopes;
        }

        public string OperationId { get; private set; }

        public string Method { get; private set; }

        /// <summary>Path relative to /api/public/v1/.</summary>
        public string Path { get; private set; }

        public string Tag { get; private set; }

        /// <summary>The ColdchainClient property holding the methods, e.g. "Devices".</summary>
        public string Service { get; private set; }

        /// <summary>The async method name(s) on that service, e.g. "ListAsync".</summary>
        public IReadOnlyList<string> ClientMethods { get; private set; }

        /// <summary>A record-creating POST (sends Idempotency-Key).</summary>
        public bool Idempotent { get; private set; }

        public IReadOnlyList<string> Scopes { get; private set; }

        public override string ToString()
        {
            return OperationId + " (" + Method + " /" + Path + ")";
        }
    }
}
