import { ConflictError, DeviceNotEligibleError, type DomainError, NotFoundError, RangeTooLargeError, TooManyDevicesError, ValidationFailedError } from '@app/domain';
import { ERROR_CODES } from '@app/vocabulary';
import { ApiError, asApiError } from './api-error';

describe('domain errors in the HTTP layer', () => {
  const refusals: DomainError[] = [
    new NotFoundError('Shipment'),
    new ValidationFailedError([{ field: 'name', code: 'required', message: 'name is required' }]),
    new ConflictError('in_use', 'The carrier is used by a template.'),
    new TooManyDevicesError(6),
    new DeviceNotEligibleError([{ field: 'device_ids[0]', code: 'not_found', message: 'unknown device' }]),
    new RangeTooLargeError(31),
  ];

  it('carry a code and details, no status or headers', () => {
    for (const error of refusals) {
      expect({ code: error.code, status: 'status' in error, headers: 'headers' in error }).toEqual({ code: error.code, status: false, headers: false });
    }
  });

  it('answer with the status ERROR_CODES gives their code, and keep title, detail and field errors', () => {
    for (const error of refusals) {
      const answer = asApiError(error);
      expect(answer).toBeInstanceOf(ApiError);
      expect(answer).toMatchObject({ status: ERROR_CODES[error.code].status, code: error.code, title: error.title, detail: error.detail, errors: error.errors, headers: {} });
    }
  });

  it('leave an ApiError as it is and anything else alone', () => {
    const own = new ApiError(429, 'rate_limited', 'Too many requests', 'Slow down.', undefined, { 'Retry-After': '3' });
    expect(asApiError(own)).toBe(own);
    expect(asApiError(new Error('boom'))).toBeNull();
  });
});
