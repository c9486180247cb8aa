export const PASSWORD_MIN_LENGTH = 12;
/** scrypt cost grows with the input; an upper bound keeps a request cheap. */
export const PASSWORD_MAX_LENGTH = 128;

export interface PasswordProblem {
  field: 'password' | 'password_confirmation';
  message: string;
}

/** Length (in characters, not bytes) and confirmation; no composition rules (NIST SP 800-63B). */
export function passwordProblems(password: string, confirmation: string, email: string): PasswordProblem[] {
  const problems: PasswordProblem[] = [];
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) problems.push({ field: 'password', message: `Use at least ${PASSWORD_MIN_LENGTH} characters.` });
  if (length > PASSWORD_MAX_LENGTH) problems.push({ field: 'password', message: `Use at most ${PASSWORD_MAX_LENGTH} characters.` });
  if (password.length > 0 && password.trim().toLowerCase() === email.toLowerCase()) {
    problems.push({ field: 'password', message: 'Do not use your e-mail address as the password.' });
  }
  if (password !== confirmation) problems.push({ field: 'password_confirmation', message: 'The two passwords do not match.' });
  return problems;
}
