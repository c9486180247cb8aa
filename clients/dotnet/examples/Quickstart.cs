// Quick start of the Cold Chain Telemetry .NET client.
//
//   COLDCHAIN_BASE_URL=http://localhost:3000 COLDCHAIN_CLIENT_ID=... COLDCHAIN_CLIENT_SECRET=... \
//     npm run --silent example:dotnet
//
// (that builds the library and this file with Mono's mcs into clients/dotnet/bin and runs
// `mono clients/dotnet/bin/Quickstart.exe`; with the .NET SDK, add this file to a console project
// that references Coldchain.Client.csproj). COLDCHAIN_ACCOUNT_ID is needed only for a credential
// of several accounts. Prints one JSON line; exits 1 on any failure.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using Coldchain.Client;
using Coldchain.Client.Models;
using Coldchain.Client.Webhooks;

public static class Quickstart
{
    public static int Main()
    {
        try
        {
            var summary = RunAsync().GetAwaiter().GetResult();
            Console.WriteLine(summary.ToString(Formatting.None));
            return 0;
        }
        catch (ColdchainApiException error)
        {
            Console.Error.WriteLine("quickstart failed: " + error.Message);
            return 1;
        }
        catch (Exception error)
        {
            Console.Error.WriteLine("quickstart failed: " + error.GetType().Name + ": " + error.Message);
            return 1;
        }
    }

    private static string Required(string name)
    {
        var value = Environment.GetEnvironmentVariable(name);
        if (string.IsNullOrEmpty(value)) throw new InvalidOperationException(name + " is not set");
        return value;
    }

    private static async Task<JObject> RunAsync()
    {
        var options = new ClientOptions
        {
            BaseUrl = Required("COLDCHAIN_BASE_URL"),
            ClientId = Required("COLDCHAIN_CLIENT_ID"),
            ClientSecret = Required("COLDCHAIN_CLIENT_SECRET"),
            AccountId = Environment.GetEnvironmentVariable("COLDCHAIN_ACCOUNT_ID"),
        };
        using (var client = new ColdchainClient(options))
        {
            // 1. every device, page after page
            var devices = await client.Devices.ListAutoPaging(limit: 50).ToListAsync();
            if (devices.Count == 0) throw new InvalidOperationException("the account has no devices");

            // 2. the last 24 hours of one device's telemetry (the default range)
            var telemetryPoints = 0;
            await client.Telemetry.ListAutoPaging(devices[0].Id, limit: 1000).ForEachAsync(p => telemetryPoints++);

            // 3. a shipment with two devices that are in no active shipment: create, share, complete
            var busy = new HashSet<string>();
            foreach (var active in client.Shipments.ListAutoPaging(status: "active")) busy.UnionWith(active.DeviceIds);
            var free = devices.Where(d => !busy.Contains(d.Id)).Take(2).Select(d => d.Id).ToList();
            if (free.Count < 2) throw new InvalidOperationException("fewer than two devices are free for a shipment");
            var locations = await client.Locations.ListAsync(limit: 2);
            var origin = locations.Data.Count > 0 ? locations.Data[0].Id : (await NewLocation(client, "Quickstart origin", 38.42, 27.14)).Id;
            var destination = locations.Data.Count > 1 ? locations.Data[1].Id : (await NewLocation(client, "Quickstart destination", 39.93, 32.85)).Id;
            var shipment = await client.Shipments.CreateAsync(new CreateShipment
            {
                Reference = "QS-" + DateTime.UtcNow.ToString("yyyyMMddHHmmss"),
                Name = "Quick start shipment",
                OriginLocationId = origin,
                DestinationLocationId = destination,
                DeviceIds = free,
            });
            var share = await client.Shipments.PutShareAsync(shipment.Id, new PutShare { ExpiresInHours = 24, MaxViews = 10 });
            await client.Shipments.CompleteAsync(shipment.Id);

            // 4. the reports generated on completion; download one, streamed to a file
            var reports = new List<Report>();
            for (var attempt = 0; attempt < 60 && reports.Count == 0; attempt++)
            {
                if (attempt > 0) await Task.Delay(500);
                reports = await client.Reports.ListAutoPaging(shipmentId: shipment.Id).ToListAsync();
            }
            if (reports.Count == 0) throw new InvalidOperationException("no report was generated for shipment " + shipment.Id);
            var file = Path.Combine(Path.GetTempPath(), "coldchain-quickstart-" + Guid.NewGuid().ToString("N") + "-" + reports[0].Name);
            long downloaded;
            try
            {
                downloaded = await client.Reports.DownloadToFileAsync(reports[0].Id, file);
            }
            finally
            {
                if (File.Exists(file)) File.Delete(file);
            }

            // 5. a webhook as the service sends it, signed with a known secret, verified and parsed
            const string signingSecret = "whsec_quickstart_example_secret";
            var body = Encoding.UTF8.GetBytes("{\"id\":\"7d0e8c8e-2f1a-4d7e-9b1e-3f6a1c2b9d10\",\"type\":\"shipment.completed\",\"created_at\":\"" + DateTime.UtcNow.ToString("yyyy-MM-ddTHH:mm:ss.fffZ") + "\",\"data\":{\"id\":" + shipment.Id + ",\"status\":\"completed\",\"device_ids\":[]}}");
            var headers = WebhookVerifier.SignedHeaders(signingSecret, body, "shipment.completed", "7d0e8c8e-2f1a-4d7e-9b1e-3f6a1c2b9d10");
            var verified = new WebhookVerifier(signingSecret).Verify(body, headers) as ShipmentWebhookEvent;
            var webhookVerified = verified != null && verified.Shipment.Id == shipment.Id;

            return new JObject
            {
                { "devices", devices.Count },
                { "telemetry_points", telemetryPoints },
                { "shipment_id", shipment.Id },
                { "share_url", share.Url },
                { "reports", reports.Count },
                { "downloaded_bytes", downloaded },
                { "webhook_verified", webhookVerified },
            };
        }
    }

    private static Task<Location> NewLocation(ColdchainClient client, string name, double latitude, double longitude)
    {
        return client.Locations.CreateAsync(new CreateLocation
        {
            Name = name,
            Kind = CreateLocation.KindValues.Warehouse,
            Geofence = new CircleGeofence { Type = "circle", Center = new GeoPoint { Latitude = latitude, Longitude = longitude }, RadiusM = 500 },
        });
    }
}
