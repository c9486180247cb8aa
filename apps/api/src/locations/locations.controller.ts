import { Body, Query, Req } from '@nestjs/common';
import { ApiExtraModels } from '@nestjs/swagger';
import { CurrentAccount } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { CreateRecord, DeleteRecord, GetRecord, ListRecords, ReplaceRecord, UpdateRecord, type CatalogueDocs } from '../common/catalogue/catalogue-operations';
import { Paginator } from '../common/paginator';
import { PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { CreateLocationDto, UpdateLocationDto } from './dto/create-location.dto';
import { CircleGeofenceDto, PolygonGeofenceDto } from './dto/geofence.dto';
import { LocationDto } from './dto/location.dto';
import { type AccountId, BY_UUID } from '@app/vocabulary';
import { LocationsService } from '@app/domain';

const circle = { type: 'circle', center: { latitude: 38.4382, longitude: 27.1442 }, radius_m: 750 };
const polygon = {
  type: 'polygon',
  polygon: { type: 'Polygon', coordinates: [[[28.97, 41.0], [29.0, 41.0], [29.0, 41.02], [28.97, 41.02], [28.97, 41.0]]] },
};

const DOCS: CatalogueDocs = {
  noun: 'location',
  plural: 'locations',
  param: 'location_id',
  readScope: 'locations:read',
  writeScope: 'locations:write',
  dto: LocationDto,
  rules:
    'The geofence is a circle (radius 10–100000 m) or a GeoJSON polygon (one closed ring, at least 4 positions, no self-intersection); a bad geometry is a 400 naming the field, e.g. `geofence.polygon.coordinates` with code `ring_self_intersection`. `mark_arrival` and `complete_shipment` exist on entry only.',
  examples: {
    circle: {
      summary: 'A port with a circular geofence that raises an alarm on exit',
      value: { name: 'Izmir Port Cold Store', kind: 'port', city: 'Izmir', country: 'TR', geofence: circle, automation: { on_exit: { record_event: true, raise_alarm: true } } },
    },
    polygon: {
      summary: 'A customer site with a polygon geofence that completes the shipment on arrival',
      value: {
        name: 'Istanbul Hospital Pharmacy',
        kind: 'customer_site',
        geofence: polygon,
        automation: { on_entry: { record_event: true, mark_arrival: true, complete_shipment: true } },
      },
    },
  },
};

@PublicApiController('locations', 'Locations')
@ApiExtraModels(CircleGeofenceDto, PolygonGeofenceDto)
export class LocationsController {
  constructor(
    private readonly locations: LocationsService<CreateLocationDto>,
    private readonly paginator: Paginator,
  ) {}

  @ListRecords(DOCS)
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<LocationDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.locations.list(accountId, page), (l) => l.id, LocationDto.from);
  }

  @CreateRecord(DOCS, CreateLocationDto)
  async create(@CurrentAccount() accountId: AccountId, @Body() body: CreateLocationDto): Promise<LocationDto> {
    return LocationDto.from(await this.locations.create(accountId, body));
  }

  @GetRecord(DOCS)
  async get(@CurrentAccount() accountId: AccountId, @UuidParam('location_id') id: string): Promise<LocationDto> {
    return LocationDto.from(await this.locations.get(accountId, id));
  }

  @ReplaceRecord(DOCS, CreateLocationDto)
  async replace(@CurrentAccount() accountId: AccountId, @UuidParam('location_id') id: string, @Body() body: CreateLocationDto): Promise<LocationDto> {
    return LocationDto.from(await this.locations.replace(accountId, id, body));
  }

  @UpdateRecord(DOCS, UpdateLocationDto)
  async update(@CurrentAccount() accountId: AccountId, @UuidParam('location_id') id: string, @Body() body: UpdateLocationDto): Promise<LocationDto> {
    return LocationDto.from(await this.locations.update(accountId, id, body));
  }

  @DeleteRecord(DOCS)
  async remove(@CurrentAccount() accountId: AccountId, @UuidParam('location_id') id: string): Promise<void> {
    await this.locations.remove(accountId, id);
  }
}
