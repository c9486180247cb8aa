import { waitFor } from './wait';

describe('waitFor', () => {
  it('keeps polling while the probe answers null (a column not set yet), and returns the first real value', async () => {
    const answers: Array<Date | null> = [null, null, new Date(0)];
    await expect(waitFor('the column', () => answers.shift() ?? null, 2_000)).resolves.toEqual(new Date(0));
    expect(answers).toEqual([]);
  });

  it('fails with what it waited for after the deadline', async () => {
    await expect(waitFor('nothing', () => null, 60)).rejects.toThrow('timed out waiting for nothing');
  });
});
