import { passwordProblems } from './password-policy';

describe('passwordProblems', () => {
  const email = 'someone@example.com';

  it('accepts 12 characters or more when both entries match', () => {
    expect(passwordProblems('correct horse', 'correct horse', email)).toEqual([]);
    expect(passwordProblems('ÿüşçöğıİ€✓ab', 'ÿüşçöğıİ€✓ab', email)).toEqual([]);
  });

  it.each([
    ['too short', 'short pass', 'short pass', ['password']],
    ['too long', 'x'.repeat(129), 'x'.repeat(129), ['password']],
    ['the e-mail address', 'Someone@Example.com', 'Someone@Example.com', ['password']],
    ['a mismatch', 'correct horse', 'correct horsE', ['password_confirmation']],
    ['empty', '', '', ['password']],
  ])('refuses %s', (_name, password, confirmation, fields) => {
    expect(passwordProblems(password, confirmation, email).map((p) => p.field)).toEqual(fields);
  });
});
