import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The process's one AsyncLocalStorage for `name`. Every enabled instance is copied into each new
 * async resource, so a module loaded many times in one process (jest loads modules once per test
 * file) must not make a new one each time: the instances would pile up, slow every callback and
 * keep earlier apps' contexts reachable.
 */
export function processWide<T>(name: string): AsyncLocalStorage<T> {
  const key = Symbol.for(name);
  const registry = globalThis as unknown as Record<symbol, AsyncLocalStorage<T> | undefined>;
  return (registry[key] ??= new AsyncLocalStorage<T>());
}
