import { PlatformCore1763769600000 } from './1763769600000-PlatformCore';
import { Outbox1763769600001 } from './1763769600001-Outbox';
import { Catalogue1763769700000 } from './1763769700000-Catalogue';
import { Users1763769700001 } from './1763769700001-Users';
import { Devices1763769800000 } from './1763769800000-Devices';
import { TelemetryPoints1763769800001 } from './1763769800001-TelemetryPoints';
import { Alarms1763769800002 } from './1763769800002-Alarms';
import { Webhooks1763769900000 } from './1763769900000-Webhooks';
import { Shipments1763770000000 } from './1763770000000-Shipments';
import { ShipmentShares1763770000001 } from './1763770000001-ShipmentShares';
import { AisPositions1763770000002 } from './1763770000002-AisPositions';
import { Reports1763770000003 } from './1763770000003-Reports';
import { PanelSessions1763770100000 } from './1763770100000-PanelSessions';
import { CompanyAdminInvitations1763770100001 } from './1763770100001-CompanyAdminInvitations';
import { ShareLinkNonce1763770200000 } from './1763770200000-ShareLinkNonce';
import { WebhookDeliveryRetention1763770300000 } from './1763770300000-WebhookDeliveryRetention';
import { RateLimitCounters1763770600000 } from './1763770600000-RateLimitCounters';
import { InvitationEmails1763771000000 } from './1763771000000-InvitationEmails';
import { WebhookEndpointHourlyStats1763771350000 } from './1763771350000-WebhookEndpointHourlyStats';
import { WebhookClaimOwners1763771100000 } from './1763771100000-WebhookClaimOwners';
import { WebhookSlotGrants1763772400000 } from './1763772400000-WebhookSlotGrants';
import { WebhookDeliveryRecovered1763772500000 } from './1763772500000-WebhookDeliveryRecovered';
import { WebhookDeliveryEventAt1763772600000 } from './1763772600000-WebhookDeliveryEventAt';
import { WebhookDeliverySkipped1763772700000 } from './1763772700000-WebhookDeliverySkipped';
import { WebhookClaimFunction1763772800000 } from './1763772800000-WebhookClaimFunction';
import { UuidV7Function1763772900000 } from './1763772900000-UuidV7Function';
import { WebhookClaimByKey1763773000000 } from './1763773000000-WebhookClaimByKey';
import { WebhookClaimRing1763773100000 } from './1763773100000-WebhookClaimRing';
import { WebhookImpliedForeignKeys1763773200000 } from './1763773200000-WebhookImpliedForeignKeys';
import { WebhookRecovery1763771700000 } from './1763771700000-WebhookRecovery';
import { WebhookEventLogIndex1763771800000 } from './1763771800000-WebhookEventLogIndex';
import { WebhookDeliveryLease1763771900000 } from './1763771900000-WebhookDeliveryLease';
import { TelemetryPlannerStatistics1763771600000 } from './1763771600000-TelemetryPlannerStatistics';
import { WebhookSignatureFormat1763772000000 } from './1763772000000-WebhookSignatureFormat';
import { AuditTrail1763772100000 } from './1763772100000-AuditTrail';
import { AuditRetention1763772200000 } from './1763772200000-AuditRetention';
import { AuditRuntimeRole1763772300000 } from './1763772300000-AuditRuntimeRole';

/** In order. A new migration is appended here; never edit one that has shipped. */
export const MIGRATIONS = [
  PlatformCore1763769600000,
  Outbox1763769600001,
  Catalogue1763769700000,
  Users1763769700001,
  Devices1763769800000,
  TelemetryPoints1763769800001,
  Alarms1763769800002,
  Webhooks1763769900000,
  Shipments1763770000000,
  ShipmentShares1763770000001,
  AisPositions1763770000002,
  Reports1763770000003,
  PanelSessions1763770100000,
  CompanyAdminInvitations1763770100001,
  WebhookDeliveryRetention1763770300000,
  RateLimitCounters1763770600000,
  InvitationEmails1763771000000,
  ShareLinkNonce1763770200000,
  WebhookEndpointHourlyStats1763771350000,
  WebhookClaimOwners1763771100000,
  WebhookRecovery1763771700000,
  WebhookEventLogIndex1763771800000,
  WebhookDeliveryLease1763771900000,
  TelemetryPlannerStatistics1763771600000,
  WebhookSignatureFormat1763772000000,
  AuditTrail1763772100000,
  AuditRetention1763772200000,
  AuditRuntimeRole1763772300000,
  WebhookSlotGrants1763772400000,
  WebhookDeliveryRecovered1763772500000,
  WebhookDeliveryEventAt1763772600000,
  WebhookDeliverySkipped1763772700000,
  WebhookClaimFunction1763772800000,
  UuidV7Function1763772900000,
  WebhookClaimByKey1763773000000,
  WebhookClaimRing1763773100000,
  WebhookImpliedForeignKeys1763773200000,
];
