/** Something /health/ready must see working (database, broker); each app registers its own. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
  /**
   * Advisory: its failure degrades the service without making it unready (a read replica away:
   * reads go to the primary). Reported by name in `degraded`; readiness stays ok.
   */
  advisory?: boolean;
}

export class ReadinessRegistry {
  private readonly checks: ReadinessCheck[] = [];

  register(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  async run(): Promise<{ ok: boolean; checks: Record<string, string>; degraded: string[] }> {
    const results: Record<string, string> = {};
    const degraded: string[] = [];
    let ok = true;
    await Promise.all(
      this.checks.map(async (c) => {
        try {
          await Promise.race([
            c.check(),
            new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
          ]);
          results[c.name] = 'ok';
        } catch (error) {
          if (c.advisory) degraded.push(c.name);
          else ok = false;
          results[c.name] = error instanceof Error ? `failing: ${error.message}` : 'failing';
        }
      }),
    );
    return { ok, checks: results, degraded: degraded.sort() };
  }
}
