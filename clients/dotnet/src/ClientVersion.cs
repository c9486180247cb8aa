using System.Reflection;

namespace Coldchain.Client
{
    /// <summary>
    /// The version of this library, read from the assembly: its one source is &lt;Version&gt; in
    /// Coldchain.Client.csproj (the .NET SDK writes it into the assembly; the Mono build of this
    /// repository, scripts/clients/build-dotnet.js, does the same).
    /// </summary>
    public static class ClientVersion
    {
        /// <summary>e.g. "1.1.0".</summary>
        public static readonly string Value = Read();

        private static string Read()
        {
            var attribute = typeof(ClientVersion).GetTypeInfo().Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>();
            var version = attribute != null ? attribute.InformationalVersion : null;
            if (string.IsNullOrEmpty(version)) return "0.0.0";
            var plus = version.IndexOf('+');
            return plus > 0 ? version.Substring(0, plus) : version;
        }
    }
}
