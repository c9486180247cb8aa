import { isConnectionFailure } from './connection-failure';

describe('isConnectionFailure', () => {
  const error = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

  it.each([
    ['a refused connection', error('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', error('read ECONNRESET', 'ECONNRESET')],
    ['a server shutting down', error('terminating connection due to administrator command', '57P01')],
    ['a server starting or stopping', error('the database system is shutting down', '57P03')],
    ['a connection exception', error('connection failure', '08006')],
    ['a connection ended under the query', error('Connection terminated unexpectedly')],
    ['no pooled connection in time', error('timeout exceeded when trying to connect')],
    ['a released query runner', Object.assign(new Error('released'), { name: 'QueryRunnerAlreadyReleasedError' })],
    ['a driver error wrapped by TypeORM', Object.assign(new Error('query failed'), { driverError: error('x', '57P01') })],
  ])('counts %s', (_what, failure) => {
    expect(isConnectionFailure(failure)).toBe(true);
  });

  it.each([
    ['a unique violation', error('duplicate key value', '23505')],
    ['a statement timeout (busy, not away)', error('canceling statement due to statement timeout', '57014')],
    ['a syntax error', error('syntax error at or near', '42601')],
    ['nothing', undefined],
    ['a string', 'ECONNREFUSED'],
  ])('does not count %s', (_what, failure) => {
    expect(isConnectionFailure(failure)).toBe(false);
  });
});
