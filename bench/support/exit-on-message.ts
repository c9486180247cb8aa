/**
 * Preloaded (`--require`) into the api when it runs under `node --cpu-prof`: the harness asks it
 * over IPC to exit normally, which is when V8 writes the profile (a signal would kill the process
 * before that).
 */
process.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'bench:exit') process.exit(0);
});
process.channel?.unref();
