import { Param, ParseUUIDPipe, type PipeTransform } from '@nestjs/common';
import { NotFoundError } from '@app/domain';

/** A UUID path parameter; a malformed one cannot name a record, so it is a 404 like any unknown id. */
export const UuidParam = (name: string): ParameterDecorator =>
  Param(name, new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError() }));

/** Largest PostgreSQL `integer`: ids beyond it cannot exist (and must not reach a query). */
export const MAX_INT_ID = 2_147_483_647;

class PositiveIntIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > MAX_INT_ID) throw new NotFoundError();
    return Number(value);
  }
}

/** An integer path parameter (shipment ids): 1 to 2^31−1 in plain decimal; anything else is a 404. */
export const IntParam = (name: string): ParameterDecorator => Param(name, new PositiveIntIdPipe());
