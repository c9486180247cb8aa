import { redactPath } from './request-logging';

describe('redactPath', () => {
  it('hides the share token of tracking page paths and nothing else', () => {
    expect(redactPath('/track/3q2-7wEjYk8nJ0sGm9bV_1xRr5uTzQpLhA4cDf6eKoI')).toBe('/track/[redacted]');
    expect(redactPath('/track/abc/')).toBe('/track/[redacted]/');
    expect(redactPath('/api/public/v1/shipments/12/share/')).toBe('/api/public/v1/shipments/12/share/');
  });
});
