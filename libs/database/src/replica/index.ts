export * from './read-replica';
