type Step = { name: string; run: () => Promise<void> };

/**
 * Undo steps registered as resources are created, run once in reverse order at the end of the
 * run, on failure, and on Ctrl-C / SIGTERM.
 */
export class Cleanup {
  private readonly steps: Step[] = [];
  private running: Promise<void> | null = null;

  add(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step.run();
        } catch (error) {
          process.stderr.write(`[bench] cleanup: ${step.name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
    })();
    return this.running;
  }

  /** Cleans up then exits on SIGINT/SIGTERM (a second signal exits at once). */
  onSignals(): void {
    let signalled = false;
    const handler = (signal: NodeJS.Signals): void => {
      if (signalled) {
        process.stderr.write(`[bench] ${signal} again: exiting without waiting\n`);
        process.exit(130);
      }
      signalled = true;
      process.stderr.write(`[bench] ${signal}: cleaning up…\n`);
      void this.run().finally(() => process.exit(130));
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  }
}
