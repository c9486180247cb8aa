import type { DemoSeedContext } from './demo-context';
import { seedDemoUser } from '@app/domain/demo';

/** Fixed ids keep the demo fixture idempotent. */
export const DEMO_USER_IDS = {
  admin: '00000000-0000-7000-8000-00000000b001',
  regular: '00000000-0000-7000-8000-00000000b002',
  staff: '00000000-0000-7000-8000-00000000b003',
} as const;

const USERS: Array<{ key: keyof typeof DEMO_USER_IDS; email: string; fullName: string; role: string | null; staff: boolean }> = [
  { key: 'admin', email: 'admin@polar-pharma.example', fullName: 'Aylin Aksoy', role: 'COMPANY_ADMIN', staff: false },
  { key: 'regular', email: 'operator@polar-pharma.example', fullName: 'Mehmet Demir', role: 'OPERATOR', staff: false },
  // Platform staff linked to the primary account: it must never show through the API.
  { key: 'staff', email: 'support@coldchain-platform.example', fullName: 'Platform Support', role: null, staff: true },
];

/** Users of the primary account (DESIGN §7 `users`). They have no password: they never sign in here. */
export async function seedDemoUsers({ dataSource, fixture }: DemoSeedContext): Promise<void> {
  for (const user of USERS) {
    await seedDemoUser(dataSource, {
      id: DEMO_USER_IDS[user.key],
      accountId: fixture.accounts.primary,
      email: user.email,
      fullName: user.fullName,
      role: user.role,
      staff: user.staff,
    });
  }
  fixture.users = { ...DEMO_USER_IDS };
}
