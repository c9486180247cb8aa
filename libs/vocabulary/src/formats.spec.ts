import { isValidImoNumber } from './formats';

describe('isValidImoNumber', () => {
  it.each(['9074729', '9176187', '8814275'])('accepts %s', (value) => {
    expect(isValidImoNumber(value)).toBe(true);
  });

  it.each(['9074728', 'IMO9074729', '907472', '90747290', 9074729, null])('refuses %p', (value) => {
    expect(isValidImoNumber(value)).toBe(false);
  });
});
