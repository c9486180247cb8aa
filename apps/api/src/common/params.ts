import { Param, ParseIntPipe, ParseUUIDPipe } from '@nestjs/common';
import { NotFoundError } from './api-error';

/** A UUID path parameter; a malformed one cannot name a record, so it is a 404 like any unknown id. */
export const UuidParam = (name: string): ParameterDecorator =>
  Param(name, new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError() }));

/** An integer path parameter (shipment ids); malformed or out of range is a 404. */
export const IntParam = (name: string): ParameterDecorator =>
  Param(
    name,
    new ParseIntPipe({
      exceptionFactory: () => new NotFoundError(),
    }),
  );
