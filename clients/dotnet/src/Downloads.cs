using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Security.Cryptography;
using System.Threading;
using System.Threading.Tasks;
using Coldchain.Client.Internal;

namespace Coldchain.Client
{
    /// <summary>A streamed file response (report download). Dispose it when done.</summary>
    public sealed class FileDownload : IDisposable
    {
        private readonly HttpResponseMessage response;

        internal FileDownload(HttpResponseMessage response, Stream content, TimeSpan idleTimeout)
        {
            this.response = response;
            Content = new IdleTimeoutStream(content, idleTimeout, () => response.Dispose(), () => RequestId);
            LastResponse = ResponseInfo.From(response, null);
            var headers = response.Content.Headers;
            ContentType = headers.ContentType != null ? headers.ContentType.MediaType : null;
            ContentLength = headers.ContentLength;
            FileName = headers.ContentDisposition != null ? (headers.ContentDisposition.FileNameStar ?? headers.ContentDisposition.FileName) : null;
            if (FileName != null) FileName = FileName.Trim('"');
            ETag = response.Headers.ETag != null ? response.Headers.ETag.Tag.Trim('"') : null;
            IEnumerable<string> ids;
            RequestId = response.Headers.TryGetValues("X-Request-ID", out ids) ? ids.FirstOrDefault() : null;
        }

        /// <summary>The body, read from the network as it is consumed. A read that gets no byte within the client's Timeout fails (ColdchainConnectionException, TimedOut) instead of hanging.</summary>
        public Stream Content { get; private set; }

        public string ContentType { get; private set; }

        public long? ContentLength { get; private set; }

        /// <summary>File name from Content-Disposition.</summary>
        public string FileName { get; private set; }

        /// <summary>The ETag without quotes: the SHA-256 of the file (hex).</summary>
        public string ETag { get; private set; }

        public string RequestId { get; private set; }

        /// <summary>The response (status, request id, rate-limit headers).</summary>
        public ResponseInfo LastResponse { get; private set; }

        /// <summary>
        /// Copies the body to <paramref name="destination"/> in chunks, checking its length against
        /// Content-Length and its SHA-256 against the ETag; returns the number of bytes copied.
        /// A body that stalls (no bytes for the client's Timeout) fails with a
        /// <see cref="ColdchainConnectionException"/> (TimedOut) instead of hanging.
        /// </summary>
        public async Task<long> CopyToAsync(Stream destination, CancellationToken cancellationToken = default(CancellationToken))
        {
            var buffer = new byte[81920];
            long total = 0;
            using (var sha = SHA256.Create())
            {
                int read;
                while ((read = await Content.ReadAsync(buffer, 0, buffer.Length, cancellationToken).ConfigureAwait(false)) > 0)
                {
                    sha.TransformBlock(buffer, 0, read, null, 0);
                    await destination.WriteAsync(buffer, 0, read, cancellationToken).ConfigureAwait(false);
                    total += read;
                }
                sha.TransformFinalBlock(new byte[0], 0, 0);
                if (ContentLength.HasValue && ContentLength.Value != total)
                {
                    throw new ColdchainException("download incomplete: " + total + " of " + ContentLength.Value + " bytes (request id " + RequestId + ")");
                }
                var digest = BitConverter.ToString(sha.Hash).Replace("-", "").ToLowerInvariant();
                if (ETag != null && ETag.Length == 64 && !string.Equals(ETag, digest, StringComparison.OrdinalIgnoreCase))
                {
                    throw new ColdchainException("download corrupted: SHA-256 differs from the ETag (request id " + RequestId + ")");
                }
            }
            await destination.FlushAsync(cancellationToken).ConfigureAwait(false);
            return total;
        }

        /// <summary>Streams the body into a file (written as path + ".part", then renamed); returns the byte count.</summary>
        public async Task<long> SaveToFileAsync(string path, CancellationToken cancellationToken = default(CancellationToken))
        {
            var partial = path + ".part";
            try
            {
                long written;
                using (var file = new FileStream(partial, FileMode.Create, FileAccess.Write, FileShare.None, 81920, true))
                {
                    written = await CopyToAsync(file, cancellationToken).ConfigureAwait(false);
                }
                if (File.Exists(path)) File.Delete(path);
                File.Move(partial, path);
                return written;
            }
            catch
            {
                try
                {
                    if (File.Exists(partial)) File.Delete(partial);
                }
                catch (IOException)
                {
                    // best effort
                }
                throw;
            }
        }

        public void Dispose()
        {
            Content.Dispose();
            response.Dispose();
        }
    }

    public sealed partial class ReportsService
    {
        /// <summary>Streams a report file into <paramref name="path"/> (never held in memory); returns the number of bytes written.</summary>
        public async Task<long> DownloadToFileAsync(string reportId, string path, RequestOptions options = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            using (var download = await DownloadAsync(reportId, options, cancellationToken).ConfigureAwait(false))
            {
                return await download.SaveToFileAsync(path, cancellationToken).ConfigureAwait(false);
            }
        }

        /// <summary>Streams a report file into <paramref name="destination"/>; returns the number of bytes written.</summary>
        public async Task<long> DownloadToStreamAsync(string reportId, Stream destination, RequestOptions options = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            using (var download = await DownloadAsync(reportId, options, cancellationToken).ConfigureAwait(false))
            {
                return await download.CopyToAsync(destination, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// A response body whose every read gives up after the idle timeout. The read is not trusted to
    /// honour cancellation (Mono's does not on a stalled socket): on a stall the response is
    /// disposed, which closes the connection, and the reader gets a timeout error.
    /// </summary>
    internal sealed class IdleTimeoutStream : Stream
    {
        private readonly Stream inner;
        private readonly TimeSpan idleTimeout;
        private readonly Action abort;
        private readonly Func<string> requestId;

        internal IdleTimeoutStream(Stream inner, TimeSpan idleTimeout, Action abort, Func<string> requestId)
        {
            this.inner = inner;
            this.idleTimeout = idleTimeout;
            this.abort = abort;
            this.requestId = requestId;
        }

        public override bool CanRead { get { return true; } }

        public override bool CanSeek { get { return false; } }

        public override bool CanWrite { get { return false; } }

        public override long Length { get { throw new NotSupportedException(); } }

        public override long Position
        {
            get { throw new NotSupportedException(); }
            set { throw new NotSupportedException(); }
        }

        public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            using (var idle = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
            {
                var read = inner.ReadAsync(buffer, offset, count, idle.Token);
                var finished = await Task.WhenAny(read, Task.Delay(idleTimeout, idle.Token)).ConfigureAwait(false);
                if (finished == read) return await read.ConfigureAwait(false);
                cancellationToken.ThrowIfCancellationRequested();
                idle.Cancel();
                abort();
                // the abandoned read fails once the connection is closed: observe its exception
                Observe(read);
                throw new ColdchainConnectionException("download stalled: no data for " + (long)idleTimeout.TotalMilliseconds + " ms (request id " + requestId() + ")", null, true);
            }
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            return ReadAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin)
        {
            throw new NotSupportedException();
        }

        public override void SetLength(long value)
        {
            throw new NotSupportedException();
        }

        public override void Write(byte[] buffer, int offset, int count)
        {
            throw new NotSupportedException();
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing) inner.Dispose();
            base.Dispose(disposing);
        }

        private static void Observe(Task task)
        {
            task.ContinueWith(t => t.Exception, TaskContinuationOptions.OnlyOnFaulted);
        }
    }
}
