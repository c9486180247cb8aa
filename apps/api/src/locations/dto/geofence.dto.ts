import { applyDecorators } from '@nestjs/common';
import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import { IsDefined, IsIn, IsNumber, IsObject, Max, Min, registerDecorator, ValidateNested } from 'class-validator';
import { POLYGON_MAX_POSITIONS, POLYGON_PROBLEM_CODES, polygonCoordinatesProblem } from '@app/domain';
import { GEOFENCE_RADIUS_M, GEOFENCE_TYPES, type Position } from '@app/vocabulary';

const finite = { allowNaN: false, allowInfinity: false };

export class GeoPointDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 38.4382 }) @IsNumber(finite) @Min(-90) @Max(90) latitude: number;
  @ApiProperty({ minimum: -180, maximum: 180, example: 27.1442 }) @IsNumber(finite) @Min(-180) @Max(180) longitude: number;
}

export class CircleGeofenceDto {
  @ApiProperty({ enum: ['circle'] }) @IsIn(['circle']) type: 'circle';
  @ApiProperty({ type: GeoPointDto }) @IsDefined() @IsObject() @ValidateNested() @Type(() => GeoPointDto) center: GeoPointDto;
  @ApiProperty({ minimum: GEOFENCE_RADIUS_M.min, maximum: GEOFENCE_RADIUS_M.max, example: 750, description: 'Radius in metres.' })
  @IsNumber(finite)
  @Min(GEOFENCE_RADIUS_M.min)
  @Max(GEOFENCE_RADIUS_M.max)
  radius_m: number;
}

/**
 * Validates GeoJSON Polygon coordinates with one constraint per problem, so that `errors[].code`
 * says what is wrong (`ring_not_closed`, `ring_self_intersection`, ...) for
 * `geofence.polygon.coordinates`.
 */
function PolygonCoordinates(): PropertyDecorator {
  return (target, propertyName) => {
    for (const code of POLYGON_PROBLEM_CODES) {
      registerDecorator({
        name: code,
        target: target.constructor,
        propertyName: String(propertyName),
        validator: {
          validate: (value: unknown) => polygonCoordinatesProblem(value)?.code !== code,
          defaultMessage: (args) => `${args?.property ?? 'coordinates'}: ${polygonCoordinatesProblem(args?.value)?.message ?? 'invalid'}`,
        },
      });
    }
  };
}

export class GeoJsonPolygonDto {
  @ApiProperty({ enum: ['Polygon'] }) @IsIn(['Polygon']) type: 'Polygon';

  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: 1,
    items: {
      type: 'array',
      minItems: 4,
      maxItems: POLYGON_MAX_POSITIONS,
      items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
    },
    description:
      'Exactly one linear ring of [longitude, latitude] positions (RFC 7946): at least 4 positions, the last equal to the first, longitude -180..180, latitude -90..90, not all on one line, no self-intersection. Holes are not supported.',
    example: [[[27.13, 38.43], [27.15, 38.43], [27.15, 38.45], [27.13, 38.45], [27.13, 38.43]]],
  })
  @PolygonCoordinates()
  coordinates: Position[][];
}

export class PolygonGeofenceDto {
  @ApiProperty({ enum: ['polygon'] }) @IsIn(['polygon']) type: 'polygon';
  @ApiProperty({ type: GeoJsonPolygonDto, description: 'A GeoJSON Polygon geometry.' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => GeoJsonPolygonDto)
  polygon: GeoJsonPolygonDto;
}

/** Target of an unknown `type`: only `type` is accepted on it, and it fails. */
class UnknownGeofenceDto {
  @IsIn(GEOFENCE_TYPES) type: string;
}

export type GeofenceDto = CircleGeofenceDto | PolygonGeofenceDto;

export const GEOFENCE_SCHEMA = {
  oneOf: [{ $ref: getSchemaPath(CircleGeofenceDto) }, { $ref: getSchemaPath(PolygonGeofenceDto) }],
  discriminator: {
    propertyName: 'type',
    mapping: { circle: getSchemaPath(CircleGeofenceDto), polygon: getSchemaPath(PolygonGeofenceDto) },
  },
};

/** A circle or a polygon, chosen by `type`; the models must be registered with @ApiExtraModels. */
export const GeofenceProperty = (): PropertyDecorator =>
  applyDecorators(
    ApiProperty({ ...GEOFENCE_SCHEMA, description: 'Where the location is: a circle (centre and radius) or a GeoJSON polygon.' }),
    IsDefined(),
    IsObject(),
    ValidateNested(),
    // The class is chosen by `type` here rather than by class-transformer's discriminator, which
    // throws (a 500) on an array holding null, e.g. `"geofence": [null]`: anything but a plain
    // object is left as it is, for IsObject to refuse.
    Transform(
      ({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
        const raw = obj[key];
        if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
        const type = (raw as { type?: unknown }).type;
        return plainToInstance(type === 'circle' ? CircleGeofenceDto : type === 'polygon' ? PolygonGeofenceDto : UnknownGeofenceDto, raw);
      },
      { toClassOnly: true },
    ),
  );
