using System;
using System.Collections;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Coldchain.Client.Internal;

namespace Coldchain.Client
{
    /// <summary>One page of a list: its records and the link to the next page.</summary>
    public sealed class Page<T> : IEnumerable<T>
    {
        private readonly ApiRequester requester;
        private readonly RequestOptions options;

        internal Page(ApiRequester requester, RequestOptions options, List<T> data, string nextUrl)
        {
            this.requester = requester;
            this.options = options;
            Data = data.AsReadOnly();
            NextUrl = nextUrl;
        }

        /// <summary>The records of this page.</summary>
        public IReadOnlyList<T> Data { get; private set; }

        /// <summary>The response this page came in (status, request id, rate-limit headers).</summary>
        public ResponseInfo LastResponse { get; internal set; }

        /// <summary>links.next: the absolute URL of the next page, or null on the last page.</summary>
        public string NextUrl { get; private set; }

        /// <summary>True when there is a next page.</summary>
        public bool HasMore
        {
            get { return NextUrl != null; }
        }

        /// <summary>Fetches the next page (null on the last page), with this page's request options.</summary>
        public Task<Page<T>> GetNextPageAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (NextUrl == null) return Task.FromResult<Page<T>>(null);
            return requester.GetNextPageAsync<T>(NextUrl, options, cancellationToken);
        }

        public IEnumerator<T> GetEnumerator()
        {
            return Data.GetEnumerator();
        }

        IEnumerator IEnumerable.GetEnumerator()
        {
            return GetEnumerator();
        }
    }

    /// <summary>
    /// Every record of a list, fetched page by page (following links.next) only as far as it is read.
    /// <para>Synchronously: <c>foreach (var d in client.Devices.ListAutoPaging()) …</c> (blocks while a page loads; LINQ works).</para>
    /// <para>Asynchronously: <c>await pager.ForEachAsync(d => …)</c>, <c>await pager.ToListAsync()</c>, or
    /// <c>var e = pager.GetAsyncEnumerator(ct); while (await e.MoveNextAsync()) { … e.Current … }</c>;
    /// with C# 8 or later the same pattern makes <c>await foreach (var d in pager)</c> work.</para>
    /// (netstandard2.0 has no IAsyncEnumerable without an extra package, so the library keeps to this pattern.)
    /// </summary>
    public sealed class AutoPager<T> : IEnumerable<T>
    {
        private readonly Func<CancellationToken, Task<Page<T>>> firstPage;

        public AutoPager(Func<CancellationToken, Task<Page<T>>> firstPage)
        {
            this.firstPage = firstPage;
        }

        /// <summary>An asynchronous iterator over the records (pattern-compatible with await foreach).</summary>
        public PageIterator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new PageIterator<T>(firstPage, cancellationToken);
        }

        /// <summary>An asynchronous iterator over whole pages.</summary>
        public async Task ForEachPageAsync(Func<Page<T>, Task> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            var page = await firstPage(cancellationToken).ConfigureAwait(false);
            while (page != null)
            {
                await action(page).ConfigureAwait(false);
                page = await page.GetNextPageAsync(cancellationToken).ConfigureAwait(false);
            }
        }

        public async Task ForEachAsync(Action<T> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            var iterator = GetAsyncEnumerator(cancellationToken);
            while (await iterator.MoveNextAsync().ConfigureAwait(false)) action(iterator.Current);
        }

        public async Task ForEachAsync(Func<T, Task> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            var iterator = GetAsyncEnumerator(cancellationToken);
            while (await iterator.MoveNextAsync().ConfigureAwait(false)) await action(iterator.Current).ConfigureAwait(false);
        }

        public async Task<List<T>> ToListAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            var all = new List<T>();
            await ForEachPageAsync(page =>
            {
                all.AddRange(page.Data);
                return Task.FromResult(0);
            }, cancellationToken).ConfigureAwait(false);
            return all;
        }

        public IEnumerator<T> GetEnumerator()
        {
            var page = firstPage(CancellationToken.None).ConfigureAwait(false).GetAwaiter().GetResult();
            while (page != null)
            {
                foreach (var item in page.Data) yield return item;
                page = page.GetNextPageAsync().ConfigureAwait(false).GetAwaiter().GetResult();
            }
        }

        IEnumerator IEnumerable.GetEnumerator()
        {
            return GetEnumerator();
        }
    }

    /// <summary>Asynchronous record iterator of an <see cref="AutoPager{T}"/>.</summary>
    public sealed class PageIterator<T>
    {
        private readonly Func<CancellationToken, Task<Page<T>>> firstPage;
        private readonly CancellationToken cancellationToken;
        private Page<T> page;
        private int index = -1;
        private bool finished;

        internal PageIterator(Func<CancellationToken, Task<Page<T>>> firstPage, CancellationToken cancellationToken)
        {
            this.firstPage = firstPage;
            this.cancellationToken = cancellationToken;
        }

        public T Current { get; private set; }

        /// <summary>The page the current record belongs to.</summary>
        public Page<T> CurrentPage
        {
            get { return page; }
        }

        public async Task<bool> MoveNextAsync()
        {
            if (finished) return false;
            if (page == null) page = await firstPage(cancellationToken).ConfigureAwait(false);
            index++;
            while (index >= page.Data.Count)
            {
                if (!page.HasMore)
                {
                    finished = true;
                    Current = default(T);
                    return false;
                }
                page = await page.GetNextPageAsync(cancellationToken).ConfigureAwait(false);
                index = 0;
            }
            Current = page.Data[index];
            return true;
        }
    }
}
