import { hashSecret, verifySecret } from './secret-hash';

describe('client secret hashing', () => {
  it('verifies the right secret only, with a salted scrypt hash', async () => {
    const hash = await hashSecret('ccs_correct-horse');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hashSecret('ccs_correct-horse')).not.toBe(hash);
    expect(await verifySecret('ccs_correct-horse', hash)).toBe(true);
    expect(await verifySecret('ccs_correct-horsf', hash)).toBe(false);
    expect(await verifySecret('ccs_correct-horse', 'plain')).toBe(false);
  });
});
