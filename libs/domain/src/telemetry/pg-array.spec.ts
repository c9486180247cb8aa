import { pgArray } from './pg-array';

describe('pgArray', () => {
  it('joins unquoted elements with NULL for null, as PostgreSQL reads them', () => {
    const values = [1.5, null, -0, 0.1 + 0.2, 'bc6b6d3e-4a4f-4c0a-9d0e-2f6f0f8f8f8f', '2025-06-01T12:00:00.000Z'];
    expect(pgArray(values)).toBe('{1.5,NULL,0,0.30000000000000004,bc6b6d3e-4a4f-4c0a-9d0e-2f6f0f8f8f8f,2025-06-01T12:00:00.000Z}');
    expect(pgArray([])).toBe('{}');
  });
});
