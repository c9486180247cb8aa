export * from './polygon-validation';
