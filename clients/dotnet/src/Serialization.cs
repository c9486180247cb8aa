using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Coldchain.Client.Internal;

namespace Coldchain.Client.Models
{
    /// <summary>
    /// Base of the request models (schemas that reject unknown fields). It remembers which
    /// properties were set, so that a PATCH sends exactly those: unset means "leave unchanged",
    /// null means "clear". Fields read from the service that this version does not know are kept
    /// and round-trip.
    /// </summary>
    public abstract class FieldSet
    {
        private readonly List<string> order = new List<string>();
        private readonly Dictionary<string, object> values = new Dictionary<string, object>();

        /// <summary>True when the JSON field was set (null included).</summary>
        public bool IsSet(string field)
        {
            return values.ContainsKey(field);
        }

        /// <summary>Removes a field, so that it is not sent.</summary>
        public void Unset(string field)
        {
            if (values.Remove(field)) order.Remove(field);
        }

        /// <summary>The names of the fields that are set, in the order they were set.</summary>
        public IReadOnlyList<string> SetFields
        {
            get { return order.AsReadOnly(); }
        }

        /// <summary>Sets any JSON field, also one this version of the client does not know.</summary>
        public void SetRaw(string field, object value)
        {
            Set(field, value);
        }

        protected T Get<T>(string field)
        {
            object value;
            if (!values.TryGetValue(field, out value) || value == null) return default(T);
            if (value is T) return (T)value;
            var token = value as JToken ?? JToken.FromObject(value, Json.Serializer);
            if (token.Type == JTokenType.Null) return default(T);
            var converted = token.ToObject<T>(Json.Serializer);
            values[field] = converted;
            return converted;
        }

        protected void Set(string field, object value)
        {
            if (!values.ContainsKey(field)) order.Add(field);
            values[field] = value;
        }

        internal IEnumerable<KeyValuePair<string, object>> Entries()
        {
            return order.Select(k => new KeyValuePair<string, object>(k, values[k]));
        }

        public override string ToString()
        {
            return GetType().Name + JsonConvert.SerializeObject(this, Json.Settings);
        }
    }
}

namespace Coldchain.Client.Internal
{
    using Coldchain.Client.Models;

    /// <summary>The JSON settings of the client (Newtonsoft.Json).</summary>
    public static class Json
    {
        public static readonly JsonSerializerSettings Settings = new JsonSerializerSettings
        {
            DateParseHandling = DateParseHandling.None,
            NullValueHandling = NullValueHandling.Include,
            MissingMemberHandling = MissingMemberHandling.Ignore,
            DateFormatString = "yyyy'-'MM'-'dd'T'HH':'mm':'ss.FFFFFFFK",
        };

        public static readonly JsonSerializer Serializer = JsonSerializer.Create(Settings);

        public static string Serialize(object value)
        {
            return JsonConvert.SerializeObject(value, Formatting.None, Settings);
        }

        public static T Deserialize<T>(string json)
        {
            return JsonConvert.DeserializeObject<T>(json, Settings);
        }

        /// <summary>ISO 8601 in UTC, as the service expects in query strings.</summary>
        public static string FormatDate(DateTimeOffset value)
        {
            return value.ToUniversalTime().ToString("yyyy'-'MM'-'dd'T'HH':'mm':'ss.fff'Z'", CultureInfo.InvariantCulture);
        }
    }

    /// <summary>Reads and writes <see cref="FieldSet"/> models: only the fields that are set.</summary>
    public sealed class FieldSetConverter : JsonConverter
    {
        public override bool CanConvert(Type objectType)
        {
            return typeof(FieldSet).IsAssignableFrom(objectType);
        }

        public override object ReadJson(JsonReader reader, Type objectType, object existingValue, JsonSerializer serializer)
        {
            if (reader.TokenType == JsonToken.Null) return null;
            var json = JObject.Load(reader);
            var model = (FieldSet)Activator.CreateInstance(objectType);
            foreach (var property in json.Properties()) model.SetRaw(property.Name, property.Value);
            return model;
        }

        public override void WriteJson(JsonWriter writer, object value, JsonSerializer serializer)
        {
            var model = (FieldSet)value;
            writer.WriteStartObject();
            foreach (var entry in model.Entries())
            {
                writer.WritePropertyName(entry.Key);
                var token = entry.Value as JToken;
                if (entry.Value == null) writer.WriteNull();
                else if (token != null) token.WriteTo(writer);
                else serializer.Serialize(writer, entry.Value);
            }
            writer.WriteEndObject();
        }
    }

    /// <summary>Reads a oneOf by its discriminator property; an unknown value reads as the fallback type.</summary>
    public abstract class DiscriminatorConverter : JsonConverter
    {
        private readonly string property;
        private readonly Type fallback;
        private readonly Dictionary<string, Type> mapping = new Dictionary<string, Type>();

        protected DiscriminatorConverter(string property, Type fallback, params object[] mapping)
        {
            this.property = property;
            this.fallback = fallback;
            for (var i = 0; i + 1 < mapping.Length; i += 2) this.mapping[(string)mapping[i]] = (Type)mapping[i + 1];
        }

        public override bool CanWrite
        {
            get { return false; }
        }

        public override bool CanConvert(Type objectType)
        {
            return true;
        }

        public override object ReadJson(JsonReader reader, Type objectType, object existingValue, JsonSerializer serializer)
        {
            if (reader.TokenType == JsonToken.Null) return null;
            var json = JObject.Load(reader);
            var target = objectType;
            if (objectType.IsInterface || objectType.IsAbstract)
            {
                var tag = json[property] as JValue;
                Type mapped;
                target = tag != null && tag.Value is string && mapping.TryGetValue((string)tag.Value, out mapped) ? mapped : fallback;
            }
            if (typeof(FieldSet).IsAssignableFrom(target))
            {
                return new FieldSetConverter().ReadJson(json.CreateReader(), target, null, serializer);
            }
            var instance = Activator.CreateInstance(target);
            serializer.Populate(json.CreateReader(), instance);
            return instance;
        }

        public override void WriteJson(JsonWriter writer, object value, JsonSerializer serializer)
        {
            throw new NotSupportedException();
        }
    }
}
