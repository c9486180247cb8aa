import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { OAUTH2_SCHEME } from '../auth/auth.decorators';
import { ERROR_CODES, ALL_SCOPES } from '@app/vocabulary';
import { FieldErrorDto, ProblemDetailsDto } from '../common/openapi-responses';
import { API_PREFIX } from '../common/public-api-controller';
import { applySchemaRules } from './schema-rules';

/** Filled once at boot, then served by the schema endpoint and Swagger UI. */
export class OpenApiDocumentHolder {
  document: OpenAPIObject | null = null;
}

const DESCRIPTION = `
The stable, versioned public contract of the cold chain telemetry platform: accounts, catalogue
records, devices and telemetry, shipments, alarms, reports and customer users — tenant-scoped.

## Authentication
OAuth 2.0 client credentials: \`POST /${API_PREFIX}/oauth/token/\` with HTTP Basic (or
\`client_id\`/\`client_secret\` in the form body) and \`grant_type=client_credentials\` returns a JWT
valid for at most one hour; send it as \`Authorization: Bearer <token>\`. There is no refresh token.
Keep the client secret in a backend vault — never in a browser or mobile app.
Every call is checked against the token's scopes (all scopes listed on an operation are required),
the credential's account allow-list and tenant ownership of the addressed record.

## Account selection
A credential assigned to several active accounts must send \`X-Service-Account-ID\` on tenant-scoped
operations; with a single account it is implied. A record of another tenant answers 404, exactly like
a record that does not exist.

## Errors
Errors are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`:

| code | status | meaning |
|---|---|---|
${Object.entries(ERROR_CODES)
  .map(([code, { status, description }]) => `| \`${code}\` | ${status} | ${description} |`)
  .join('\n')}

Feature-specific conflict codes are listed on their operations. Retry only on 429 and 5xx, with
exponential backoff and jitter, honouring \`Retry-After\`. Every response carries \`X-Request-ID\`.

## Paging
Lists return \`{"data": [...], "links": {"next": <absolute URL or null>}}\`. \`limit\` defaults to 50
(maximum 200); follow \`links.next\` — cursors are opaque, bound to the list and its filters, and
stable under concurrent inserts (keyset paging).

## Audit trail
Every change to the account's records — through this API, the web panel, the operator command line
or by the service itself — is recorded in the same transaction: who, when, from where, what, and
each changed field before and after (secrets only as changed). Give a reason with the optional
\`X-Change-Reason\` header (at most 500 characters). Read the trail with \`GET /audit-events/\`
(scope \`audit:read\`); records are never changed or removed and are hash-chained per account.

## Idempotency
Every record-creating POST requires \`Idempotency-Key\` (8–128 visible ASCII characters). Keys are
scoped to the credential and account and kept 24 hours. A repeat of the same request returns the
stored status and body with \`Idempotent-Replayed: true\`; the same key with a different request is
422 \`idempotency_key_reused\`; while the first request runs, 409 \`idempotency_request_in_progress\`.
Only requests that executed are stored: a success, or a refusal the operation itself made (409,
410, 422). A request refused before it executed — 400 validation, 401, 403, 404, 413, 415, 429 —
is not stored, so correct it and retry with the same key.

## Consistency of reads
A deployment may answer some reads from a read replica of its database. Those reads may lag behind
the latest writes by at most 5 seconds by default (the operator may choose another bound); they are
never staler, whatever the replica does. Lag-tolerant: lists (devices, shipments, alarms, reports),
telemetry pages and buckets, shipment tracking, report downloads. Always current: every write, the
idempotency record, tokens and credential checks, and every read of one record by its id
(\`GET /shipments/{id}/\` after \`POST /shipments/create/\` always finds it). After a write, the
same credential's lists include it at once as well. While the database's primary is unavailable,
operations that need it answer 503 with \`Retry-After\`, and the lag-tolerant reads go on.

## Rate limits
Per credential: by default 1200 requests per minute; the token endpoint: 60 per minute per client
address (an IPv6 /64 counts as one address). Both are counted for all API replicas together (a
development instance without the shared counter store counts per replica). Responses carry
\`RateLimit-Policy\` and \`RateLimit\` (IETF draft); a 429 carries \`Retry-After\` (seconds).
Operations that send something on the account's behalf have a budget per account as well: user
invitations (each an e-mail), by default 20 per hour; a replay of an idempotent request is not counted.

## Shipments, share links and reports
Shipment ids are integers. A shipment is active from its creation (its tracking window starts then)
until it is completed — by \`POST /shipments/{id}/complete/\` or by the destination's geofence
automation — which freezes the window; \`GET /shipments/{id}/\` returns the same representation that
the \`shipment.created\` and \`shipment.completed\` events carry as \`data\`. A share link opens a
public tracking page. Its token is derived from a service secret and a per-refresh nonce, so
\`GET …/share/\` shows the same working URL while the link works, and the database alone never yields
one; a refresh (\`PUT\`) issues a new URL, invalidates the old one and resets the view count; \`DELETE\`
revokes it at once; rotating the service's \`SECRETS_KEY\` invalidates every link. Completing a shipment generates its report
(PDF and CSV of the points), listed under \`/reports/\` and downloaded as a stream.

## Webhooks
Webhooks are not part of API v1: registration happens in the web panel. Poll the API, or see the
signed webhook contract (\`X-Service-Signature: v1=<hex HMAC-SHA256 of "{timestamp}.{raw body}">\`).

## Conventions
Paths end with \`/\` (the same path without it is also accepted). Bodies are JSON with snake_case
fields; timestamps are ISO 8601 UTC. Identifiers are UUIDs except shipments (integers). PUT and PATCH
accept an explicit allow-list of writable fields and reject unknown ones; PATCH changes only the
fields sent. Responses are \`application/json; charset=utf-8\` (errors \`application/problem+json\`)
with a \`Content-Length\`; JSON responses carry no \`ETag\` and conditional requests are not
supported (report downloads excepted: their \`ETag\` is the file's SHA-256).

## Guides
The API guide — authentication, scopes, paging, errors, idempotency, rate limits, webhooks with
receiver examples, ingestion, operations — is in the service's repository: English
\`docs/en/README.md\`, Turkish \`docs/tr/README.md\`.
`.trim();

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Cold Chain Telemetry Public API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .setLicense('Proprietary', `${config.publicBaseUrl}/${API_PREFIX}/`)
    .addServer(config.publicBaseUrl)
    .addOAuth2(
      {
        type: 'oauth2',
        description: 'OAuth 2.0 client credentials; the token is a JWT sent as a Bearer token.',
        flows: {
          clientCredentials: {
            tokenUrl: `${config.publicBaseUrl}/${API_PREFIX}/oauth/token/`,
            scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, s])),
          },
        },
      },
      OAUTH2_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, builder, { extraModels: [ProblemDetailsDto, FieldErrorDto] });
  // The contract's paths all end with a slash (spec §Conventions).
  document.paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => [path.endsWith('/') ? path : `${path}/`, item]),
  );
  return applySchemaRules(document);
}
