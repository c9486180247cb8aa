import { createAccount } from '../support/fixtures';
import { insertPanelUser, signIn, type PanelBrowser } from '../support/panel';
import { waitFor } from '../support/wait';
import { WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';

/**
 * Bulk resend from the webhook event log (issue 31 item 4) against the real pipeline: the log
 * filtered to one endpoint offers to send the listed events to it again, once each; a second click
 * while they wait queues nothing; other filters narrow the selection; viewers and other companies
 * cannot use it.
 */
describe('webhook event log: bulk resend of the filtered events to one endpoint', () => {
  const harness = new WebhookDispatcherHarness();

  beforeAll(() => harness.setUp());
  afterEach(() => harness.restoreDispatcher());
  afterAll(() => harness.tearDown());

  const minute = (ago: number): string => new Date(Date.now() - ago * 60_000).toISOString().slice(0, 16).replace('T', ' ');
  const bulkCount = (text: string): string | null => /id="bulk-resend" data-count="(\d+)"/.exec(text)?.[1] ?? null;

  it('queues the listed failed events to the endpoint again, once each, then nothing twice; time and outcome filters narrow it', async () => {
    const { receiver, dataSource, api } = harness;
    const accountId = await createAccount(dataSource, 'Bulk Resend Co');
    receiver.script('/bulk', [], { status: 400 }); // refused: each delivery fails for good at once
    const hook = await harness.endpoint('/bulk', ['alarm.created'], accountId);
    const other = await harness.endpoint('/bulk-other', ['alarm.created'], accountId);
    const events: string[] = [];
    for (let i = 0; i < 3; i++) events.push((await harness.publish(accountId)).id);
    for (const id of events) await harness.settled(hook.id, id);
    for (const id of events) await harness.settled(other.id, id);
    // The first event happened 30 minutes ago (outside a "last 10 minutes" filter).
    await dataSource.query(`UPDATE webhook_deliveries SET created_at = now() - interval '30 minutes' WHERE event_id = $1`, [events[0]]);

    const admin: PanelBrowser = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    const failed = await admin.agent.get(`/panel/webhook-events/?endpoint=${hook.id}&outcome=failed`).expect(200);
    expect(bulkCount(failed.text)).toBe('3');
    expect(failed.text).toContain('Resend 3 events to this endpoint');
    const recent = await admin.agent.get(`/panel/webhook-events/?endpoint=${hook.id}&from=${encodeURIComponent(minute(10))}`).expect(200);
    expect(bulkCount(recent.text)).toBe('2');
    // Without an endpoint chosen there is nothing to offer.
    expect(bulkCount((await admin.agent.get('/panel/webhook-events/?outcome=failed').expect(200)).text)).toBeNull();

    // While the dispatcher is away, two clicks queue each event once.
    await harness.stopDispatcher();
    receiver.script('/bulk', [], { status: 200 });
    const mark = receiver.received('/bulk').length;
    const post = (fields: Record<string, string>) => admin.agent.post('/panel/webhook-events/resend/').type('form').send({ _csrf: admin.csrf, ...fields });
    const first = await post({ endpoint: hook.id, outcome: 'failed' }).expect(303);
    expect(first.headers.location).toBe(`/panel/webhook-events/?outcome=failed&endpoint=${hook.id}&notice=bulk_resend_queued`);
    const second = await post({ endpoint: hook.id, outcome: 'failed' }).expect(303);
    expect(second.headers.location).toContain('notice=bulk_resend_none');
    const queued = await dataSource.query(`SELECT event_id, origin, status FROM webhook_deliveries WHERE endpoint_id = $1 AND origin = 'resend' ORDER BY event_id`, [hook.id]);
    expect(queued.map((d: { event_id: string }) => d.event_id)).toEqual([...events].sort());
    expect(queued.every((d: { status: string }) => d.status === 'pending')).toBe(true);
    // Each queued resend is in the audit trail, by the person who asked, from this route.
    const audited = await dataSource.query(
      `SELECT actor_type, action, resource_id FROM audit_events WHERE account_id = $1 AND resource_type = 'webhook_delivery' AND action = 'POST /panel/webhook-events/resend/'`,
      [accountId],
    );
    expect(audited.map((a: { resource_id: string }) => a.resource_id).sort()).toEqual(
      (await dataSource.query(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND origin = 'resend'`, [hook.id])).map((d: { id: string }) => d.id).sort(),
    );
    expect(new Set(audited.map((a: { actor_type: string }) => a.actor_type))).toEqual(new Set(['panel_user']));
    // The other endpoint of the company got nothing.
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND origin = 'resend'`, [other.id])).toEqual([{ n: 0 }]);

    await harness.startDispatcher();
    await waitFor('each event to arrive again', () => events.every((id) => receiver.received('/bulk').slice(mark).filter((r) => r.headers['x-service-event-id'] === id).length === 1), 20_000);
    const after = await admin.agent.get(`/panel/webhook-events/?endpoint=${hook.id}&outcome=failed&notice=bulk_resend_queued`).expect(200);
    expect(after.text).toContain('The listed events were queued to be sent again');
    await waitFor('the resends to close', async () => (await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [hook.id]))[0].n === 0);
    // Delivered now: the "failed" filter lists none of them, and resending all listed events is offered again (any outcome).
    const none = await admin.agent.get(`/panel/webhook-events/?endpoint=${hook.id}&outcome=failed`).expect(200);
    expect(bulkCount(none.text)).toBe('0');
    expect(none.text).toContain('No event listed here can be sent again');
    expect(bulkCount((await admin.agent.get(`/panel/webhook-events/?endpoint=${hook.id}`).expect(200)).text)).toBe('3');
  });

  it('refuses a viewer, another company’s endpoint, a disabled endpoint and a post without an endpoint', async () => {
    const { dataSource, api } = harness;
    const accountId = await createAccount(dataSource, 'Bulk Resend Guarded');
    const hook = await harness.endpoint('/bulk-guarded', ['alarm.created'], accountId);
    const stranger = await harness.endpoint('/bulk-stranger', ['alarm.created']);
    const event = (await harness.publish(accountId)).id;
    await harness.settled(hook.id, event);

    const viewer: PanelBrowser = await signIn(api, (await insertPanelUser(dataSource, accountId, 'VIEWER')).email);
    expect(bulkCount((await viewer.agent.get(`/panel/webhook-events/?endpoint=${hook.id}`).expect(200)).text)).toBeNull();
    await viewer.agent.post('/panel/webhook-events/resend/').type('form').send({ _csrf: viewer.csrf, endpoint: hook.id }).expect(403);

    const admin: PanelBrowser = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    const foreign = await admin.agent.post('/panel/webhook-events/resend/').type('form').send({ _csrf: admin.csrf, endpoint: stranger.id }).expect(400);
    expect(foreign.text).toContain('Choose an endpoint from the list.');
    const none = await admin.agent.post('/panel/webhook-events/resend/').type('form').send({ _csrf: admin.csrf }).expect(400);
    expect(none.text).toContain('Choose the endpoint to send the listed events to.');
    await admin.agent.post('/panel/webhook-events/resend/').type('form').send({ endpoint: hook.id }).expect(403); // no CSRF token

    await harness.service.disable(accountId, hook.id);
    const disabled = await admin.agent.get(`/panel/webhook-events/?endpoint=${hook.id}`).expect(200);
    expect(disabled.text).toContain('This endpoint is disabled: <a');
    const refused = await admin.agent.post('/panel/webhook-events/resend/').type('form').send({ _csrf: admin.csrf, endpoint: hook.id }).expect(303);
    expect(refused.headers.location).toContain('notice=endpoint_disabled');
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE origin = 'resend' AND endpoint_id = ANY($1)`, [[hook.id, stranger.id]])).toEqual([{ n: 0 }]);
  });
});
