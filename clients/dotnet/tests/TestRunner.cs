using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;

namespace Coldchain.Client.Tests
{
    /// <summary>A test method: void or async Task, no parameters.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class TestAttribute : Attribute
    {
    }

    /// <summary>
    /// A test against a running service: skipped unless the named environment variables are set
    /// (with --no-skip a missing variable fails the test instead).
    /// </summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class LiveAttribute : Attribute
    {
        public LiveAttribute(params string[] variables)
        {
            Variables = variables;
        }

        public string[] Variables { get; private set; }
    }

    /// <summary>A test that runs only when its category is asked for with --category NAME.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class CategoryAttribute : Attribute
    {
        public CategoryAttribute(string name)
        {
            Name = name;
        }

        public string Name { get; private set; }
    }

    public sealed class AssertionException : Exception
    {
        public AssertionException(string message) : base(message)
        {
        }
    }

    public static class Assert
    {
        public static void True(bool condition, string message)
        {
            if (!condition) throw new AssertionException(message);
        }

        public static void Equal<T>(T expected, T actual, string what)
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual)) throw new AssertionException(what + ": expected <" + expected + "> but was <" + actual + ">");
        }

        public static void NotNull(object value, string what)
        {
            if (value == null) throw new AssertionException(what + " is null");
        }

        public static void DoesNotContain(string haystack, string needle, string what)
        {
            if (!string.IsNullOrEmpty(needle) && haystack != null && haystack.Contains(needle)) throw new AssertionException(what + " contains a secret");
        }

        public static async Task<T> ThrowsAsync<T>(Func<Task> action, string what) where T : Exception
        {
            try
            {
                await action();
            }
            catch (T expected)
            {
                return expected;
            }
            catch (Exception other)
            {
                throw new AssertionException(what + ": expected " + typeof(T).Name + " but got " + other.GetType().Name + ": " + other.Message);
            }
            throw new AssertionException(what + ": expected " + typeof(T).Name + " but nothing was thrown");
        }

        public static T Throws<T>(Action action, string what) where T : Exception
        {
            try
            {
                action();
            }
            catch (T expected)
            {
                return expected;
            }
            catch (Exception other)
            {
                throw new AssertionException(what + ": expected " + typeof(T).Name + " but got " + other.GetType().Name + ": " + other.Message);
            }
            throw new AssertionException(what + ": expected " + typeof(T).Name + " but nothing was thrown");
        }
    }

    /// <summary>
    /// The test runner (NUnit is not required): runs every [Test] method of this assembly, prints one
    /// line per test and a summary, exits 1 when a test failed.
    ///   mono Coldchain.Client.Tests.exe [--filter TEXT] [--category NAME] [--no-skip]
    /// </summary>
    public static class TestRunner
    {
        public static int Main(string[] args)
        {
            if (args.Length > 1 && args[0] == "--fault") return FaultDriver.Run(args.Skip(1).ToArray());
            string filter = null;
            string category = null;
            var noSkip = false;
            for (var i = 0; i < args.Length; i++)
            {
                if (args[i] == "--filter" && i + 1 < args.Length) filter = args[++i];
                else if (args[i] == "--category" && i + 1 < args.Length) category = args[++i];
                else if (args[i] == "--no-skip") noSkip = true;
                else
                {
                    Console.Error.WriteLine("usage: Coldchain.Client.Tests.exe [--filter TEXT] [--category NAME] [--no-skip]");
                    return 2;
                }
            }
            var tests = typeof(TestRunner).Assembly.GetTypes()
                .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static))
                .Where(m => m.GetCustomAttributes(typeof(TestAttribute), false).Length > 0)
                .OrderBy(m => m.DeclaringType.Name, StringComparer.Ordinal)
                .ThenBy(m => m.MetadataToken)
                .ToList();
            int passed = 0, failed = 0, skipped = 0;
            var total = Stopwatch.StartNew();
            foreach (var test in tests)
            {
                var name = test.DeclaringType.Name + "." + test.Name;
                var testCategory = test.GetCustomAttributes(typeof(CategoryAttribute), false).Cast<CategoryAttribute>().Select(c => c.Name).FirstOrDefault();
                if (category != null ? testCategory != category : testCategory != null) continue;
                if (filter != null && name.IndexOf(filter, StringComparison.OrdinalIgnoreCase) < 0) continue;
                var live = test.GetCustomAttributes(typeof(LiveAttribute), false).Cast<LiveAttribute>().FirstOrDefault();
                if (live != null)
                {
                    var missing = live.Variables.Where(v => string.IsNullOrEmpty(Environment.GetEnvironmentVariable(v))).ToList();
                    if (missing.Count > 0)
                    {
                        if (noSkip)
                        {
                            failed++;
                            Console.WriteLine("FAIL " + name + ": environment lacks " + string.Join(", ", missing.ToArray()));
                        }
                        else
                        {
                            skipped++;
                            Console.WriteLine("SKIP " + name + " (needs " + string.Join(", ", missing.ToArray()) + ")");
                        }
                        continue;
                    }
                }
                var watch = Stopwatch.StartNew();
                try
                {
                    var instance = test.IsStatic ? null : Activator.CreateInstance(test.DeclaringType);
                    var result = test.Invoke(instance, null);
                    var task = result as Task;
                    if (task != null) task.GetAwaiter().GetResult();
                    passed++;
                    Console.WriteLine("PASS " + name + " (" + watch.ElapsedMilliseconds + " ms)");
                }
                catch (Exception error)
                {
                    var cause = error is TargetInvocationException && error.InnerException != null ? error.InnerException : error;
                    failed++;
                    Console.WriteLine("FAIL " + name + " (" + watch.ElapsedMilliseconds + " ms): " + cause.GetType().Name + ": " + cause.Message);
                    if (!(cause is AssertionException)) Console.WriteLine(cause.StackTrace);
                }
            }
            Console.WriteLine("tests: " + passed + " passed, " + failed + " failed, " + skipped + " skipped, " + (passed + failed + skipped) + " total (" + total.ElapsedMilliseconds + " ms)");
            return failed > 0 || passed + failed == 0 ? 1 : 0;
        }
    }
}
