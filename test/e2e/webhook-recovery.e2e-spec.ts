import type { EventType } from '@app/events';
import { WebhookRecovery } from '@app/webhooks';
import { createAccount } from '../support/fixtures';
import { runCaptured } from '../support/cli';
import { insertPanelUser, signIn, type PanelBrowser } from '../support/panel';
import { waitFor } from '../support/wait';
import { WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';

/**
 * Recovery after an outage (issue 17 item 3) against the real pipeline: the api (panel, outbox
 * relay), RabbitMQ, a dispatcher with an all-zero retry schedule (so 20 consecutive failures come
 * quickly) and an HTTPS receiver that is down, then back.
 */
describe('webhook recovery after an outage: every missed event once, nothing twice', () => {
  const harness = new WebhookDispatcherHarness();
  const { endpoint, publish, deliveries, startDispatcher, stopDispatcher } = harness;

  beforeAll(() => harness.setUp());
  afterEach(() => harness.restoreDispatcher());
  afterAll(() => harness.tearDown());

  /** Requests the receiver got on `path` after the first `from`, counted per event id. */
  const perEvent = (path: string, from = 0): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const r of harness.receiver.received(path).slice(from)) {
      const id = String(r.headers['x-service-event-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const published = async (accountId: Parameters<typeof publish>[0], type: EventType = 'alarm.created') => (await publish(accountId, type)).id;

  it('panel and CLI: an auto-disabled endpoint, re-enabled, gets each missed event of its types since the chosen time exactly once', async () => {
    const { receiver, api, dataSource } = harness;
    receiver.script('/down', [], { status: 500 });
    const hook = await endpoint('/down', ['alarm.created']);
    const accountId = hook.account_id;
    // Another company, with an endpoint of its own, whose events must never reach this one.
    const other = await endpoint('/other-company', ['alarm.created']);

    // Before the chosen time: fails all its attempts, and is not part of the recovery.
    const before = await published(accountId);
    await harness.settled(hook.id, before);
    await pause(50);
    const since = new Date();
    await pause(50);

    // The outage: failing events until the 20th consecutive failure disables the endpoint.
    const failing: string[] = [];
    for (let i = 0; i < 3; i++) failing.push(await published(accountId));
    await waitFor('the endpoint to be disabled', async () => (await harness.service.get(accountId, hook.id)).status === 'disabled', 30_000);
    await waitFor('no pending delivery', async () => (await deliveries(hook.id)).every((d) => d.status !== 'pending'));
    // Events go on while it is disabled: the fan-out records each for it as not sent ('skipped': closed, no body, never attempted).
    const whileDisabled = [await published(accountId), await published(accountId)];
    const unsubscribed = await published(accountId, 'shipment.created');
    const otherEvent = await published(other.account_id);
    await harness.settled(other.id, otherEvent);
    await waitFor('fan-out of the events published while disabled', async () =>
      (await deliveries(hook.id)).filter((d) => whileDisabled.includes(d.event_id)).length === whileDisabled.length,
    );
    for (const d of (await deliveries(hook.id)).filter((row) => whileDisabled.includes(row.event_id))) {
      expect(d).toMatchObject({ status: 'skipped', attempts: 0, body: null, next_attempt_at: null });
    }
    expect((await deliveries(hook.id)).map((d) => d.event_id)).not.toContain(unsubscribed);
    const statuses = new Map((await deliveries(hook.id)).map((d) => [d.event_id, d.status]));
    expect(failing.map((id) => statuses.get(id))).toContain('cancelled');

    // The receiver is back; a company administrator re-enables the endpoint in the panel.
    receiver.script('/down', [], { status: 200 });
    const admin: PanelBrowser = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    const enabled = await admin.agent.post(`/panel/webhooks/${hook.id}/enable/`).type('form').send({ _csrf: admin.csrf }).expect(303);
    const offered = new URL(enabled.headers.location as string, 'http://panel.test');
    expect(offered.pathname).toBe(`/panel/webhooks/${hook.id}/recover/`);
    expect(offered.searchParams.get('notice')).toBe('endpoint_enabled');
    // Pre-filled with when it started failing (the minute of the first failed delivery), not later than the disable.
    const prefill = new Date(offered.searchParams.get('since') as string);
    expect(prefill.getTime()).toBeLessThanOrEqual(since.getTime());
    const form = await admin.agent.get(offered.pathname + offered.search).expect(200);
    expect(form.text).toContain(`value="${prefill.toISOString().slice(0, 16).replace('T', ' ')}"`);
    expect(form.text).toContain('Recover failed deliveries since (UTC)');
    expect(form.text).toContain(`name="previewed" value="${prefill.toISOString()}"`);
    // The prefill reaches back to the first failure: the event before `since` too.
    expect(form.text).toContain('data-count="6"');

    // A time other than the previewed one (edited after the preview), or "Preview count", previews and sends nothing.
    for (const fields of [{ since: since.toISOString(), previewed: prefill.toISOString() }, { since: since.toISOString(), preview: '1' }]) {
      const previewed = await admin.agent.post(`/panel/webhooks/${hook.id}/recover/`).type('form').send({ _csrf: admin.csrf, ...fields }).expect(200);
      expect(previewed.text).toContain('<h1>Recover failed deliveries</h1>');
      expect(previewed.text).toContain('data-count="5"');
      expect(previewed.text).toContain(`name="previewed" value="${since.toISOString()}"`);
    }
    expect((await deliveries(hook.id)).filter((d) => d.status === 'pending')).toEqual([]);

    // Recover since the outage began (a datetime-local value, UTC, here with seconds).
    const mark = receiver.received('/down').length;
    const sinceLocal = since.toISOString().slice(0, 23);
    const result = await admin.agent.post(`/panel/webhooks/${hook.id}/recover/`).type('form').send({ _csrf: admin.csrf, since: sinceLocal }).expect(200);
    expect(result.text).toContain('data-queued="5"');
    expect(result.text).toContain('5 events queued');
    const missed = [...failing, ...whileDisabled];
    await waitFor('each missed event to arrive', () => missed.every((id) => perEvent('/down', mark).get(id) === 1), 20_000);
    await waitFor('the recovered deliveries to close', async () => (await deliveries(hook.id)).every((d) => d.status !== 'pending'));
    await pause(300);
    const got = perEvent('/down', mark);
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(missed.map((id) => [id, 1])));
    expect(got.has(before)).toBe(false);
    expect(got.has(unsubscribed)).toBe(false);
    expect(got.has(otherEvent)).toBe(false);
    // Failed, cancelled and not-sent deliveries came back as origin 'recover', beside the rows they repeat.
    const rows = await deliveries(hook.id);
    expect(rows.filter((d) => d.origin === 'recover').map((d) => d.event_id).sort()).toEqual([...missed].sort());
    for (const id of whileDisabled) {
      expect(rows.filter((d) => d.event_id === id).map((d) => [d.origin, d.status])).toEqual([['event', 'skipped'], ['recover', 'succeeded']]);
    }
    // Every row the recovery queued is marked so (the attempt log's "Recovery"); the outage's own rows are not.
    const marked = await dataSource.query(
      "SELECT event_id, recovered FROM webhook_deliveries WHERE endpoint_id = $1 AND (origin = 'recover' OR event_id = ANY($2)) ORDER BY created_at",
      [hook.id, whileDisabled],
    );
    expect(marked.filter((d: { recovered: boolean }) => d.recovered).map((d: { event_id: string }) => d.event_id).sort()).toEqual([...missed].sort());
    expect((await dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND recovered AND status <> $2', [hook.id, 'succeeded']))[0].n).toBe(0);
    const automatic = await harness.service.listAttempts(accountId, hook.id);
    expect(automatic.filter((a) => a.recovered).map((a) => a.event_id).sort()).toEqual([...missed].sort());
    expect(automatic.filter((a) => !a.recovered).every((a) => a.origin === 'event' && a.delivery_status !== 'pending')).toBe(true);

    // Again: nothing is missing any more, from the panel or the CLI.
    const again = await admin.agent.post(`/panel/webhooks/${hook.id}/recover/`).type('form').send({ _csrf: admin.csrf, since: sinceLocal }).expect(200);
    expect(again.text).toContain('data-queued="0"');
    const cli = await runCaptured('webhooks:recover', '--endpoint', hook.id, '--since', since.toISOString(), '--account', accountId, '--json');
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ endpoint_id: hook.id, account_id: accountId, queued: 0, more: false });
    await pause(300);
    expect(receiver.received('/down').length).toBe(mark + missed.length);
    // The other company's endpoint got only its own event.
    expect([...perEvent('/other-company').keys()]).toEqual([otherEvent]);
  }, 90_000);

  it('CLI and concurrent runs: recovering twice, or while an earlier recovery is pending, queues each event once; a cap stops a run early', async () => {
    const { dataSource, config } = harness;
    const hook = await endpoint('/paused', ['alarm.created', 'shipment.created']);
    const accountId = hook.account_id;
    const since = new Date(Date.now() - 1000);
    // No dispatcher runs: the events wait in RabbitMQ, not fanned out yet. Recovery queues the fan-out's own
    // rows for them, so when the dispatcher comes back its fan-out adds nothing (no second delivery).
    await stopDispatcher();
    const notFannedOut = [await published(accountId), await published(accountId, 'shipment.created')];
    expect((await runCaptured('webhooks:disable', hook.id, '--json')).code).toBe(0);
    const disabledCli = await runCaptured('webhooks:recover', '--endpoint', hook.id, '--since', since.toISOString());
    expect(disabledCli).toMatchObject({ code: 2 });
    expect(disabledCli.stderr).toContain('disabled');
    const whileDisabled = await published(accountId);
    expect((await runCaptured('webhooks:enable', hook.id)).code).toBe(0);

    // Argument refusals: exit 2, nothing queued.
    for (const argv of [
      ['--since', 'yesterday'],
      ['--since', new Date(Date.now() + 3_600_000).toISOString()],
      ['--since', new Date(Date.now() - (config.webhookRetentionDays + 1) * 86_400_000).toISOString()],
      ['--since', since.toISOString(), '--account', await createAccount(dataSource, 'Someone else')],
    ]) {
      const refused = await runCaptured('webhooks:recover', '--endpoint', hook.id, ...argv);
      expect({ argv, code: refused.code }).toEqual({ argv, code: 2 });
    }

    // A capped run stops at its limit and says so; runs at the same time queue each event once in all.
    const capped = new WebhookRecovery(dataSource, { maxEvents: 1, retentionDays: config.webhookRetentionDays });
    const first = await capped.recover(accountId, hook.id, since);
    expect(first).toMatchObject({ queued: 1, limit: 1, more: true, resume_since: since.toISOString() });
    const recovery = new WebhookRecovery(dataSource, { retentionDays: config.webhookRetentionDays });
    const together = await Promise.all([recovery.recover(accountId, hook.id, since), recovery.recover(accountId, hook.id, since), capped.recover(accountId, hook.id, since)]);
    expect(1 + together.reduce((sum, r) => sum + r.queued, 0)).toBe(3);
    const cli = await runCaptured('webhooks:recover', '--endpoint', hook.id, '--since', since.toISOString());
    expect(cli).toMatchObject({ code: 0 });
    expect(cli.stdout).toContain('0 events queued');

    await startDispatcher();
    const all = [...notFannedOut, whileDisabled];
    await waitFor('each event to arrive', () => all.every((id) => perEvent('/paused').get(id) === 1), 20_000);
    await waitFor('the deliveries to close', async () => (await deliveries(hook.id)).every((d) => d.status !== 'pending'));
    await pause(500);
    expect(Object.fromEntries(perEvent('/paused'))).toEqual(Object.fromEntries(all.map((id) => [id, 1])));
    // Delivered events are not sent again.
    expect((await recovery.recover(accountId, hook.id, since)).queued).toBe(0);
  }, 60_000);

  it('never sends events from before the endpoint existed or past retention; works oldest first through one-hour slices and says where to resume', async () => {
    const { dataSource, config } = harness;
    const accountId = await createAccount(dataSource, 'Late Subscriber');
    await stopDispatcher();
    const since = new Date(Date.now() - 1000);
    const beforeEndpoint = await published(accountId);
    await pause(20);
    const hook = await endpoint('/late', ['alarm.created'], accountId);
    const expired = await published(accountId);
    // Its only delivery failed long ago: the body was deleted (WEBHOOK_RETENTION_DAYS) and the outbox row pruned.
    await dataSource.query(
      `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, completed_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'alarm.created', 'event', NULL, 'failed', now())`,
      [accountId, hook.id, expired],
    );
    await dataSource.query('DELETE FROM outbox_events WHERE id = $1', [expired]);
    const recovery = new WebhookRecovery(dataSource, { retentionDays: config.webhookRetentionDays });
    expect((await recovery.recover(accountId, hook.id, since)).queued).toBe(0);
    expect((await deliveries(hook.id)).map((d) => [d.event_id, d.status])).toEqual([[expired, 'failed']]);
    expect(beforeEndpoint).not.toBe(expired);

    // A range of several one-hour slices: oldest first, and a capped run says where to resume.
    const threeHoursAgo = new Date(Date.now() - 3 * 3_600_000);
    await dataSource.query('UPDATE webhook_endpoints SET created_at = $2 WHERE id = $1', [hook.id, threeHoursAgo]);
    const old = await published(accountId);
    const recent = await published(accountId);
    await dataSource.query(`UPDATE outbox_events SET created_at = now() - interval '150 minutes' WHERE id = $1`, [old]);
    await dataSource.query(`UPDATE outbox_events SET created_at = now() - interval '4 hours' WHERE id = $1`, [beforeEndpoint]);
    const capped = new WebhookRecovery(dataSource, { maxEvents: 1, retentionDays: config.webhookRetentionDays });
    const first = await capped.recover(accountId, hook.id, threeHoursAgo);
    // Stopped in the first slice: the next run starts there (the queued event is skipped then).
    expect(first).toMatchObject({ queued: 1, more: true, resume_since: threeHoursAgo.toISOString() });
    expect((await deliveries(hook.id)).filter((d) => d.status === 'pending').map((d) => d.event_id)).toEqual([old]);
    const rest = await capped.recover(accountId, hook.id, new Date(first.resume_since as string));
    expect(rest).toMatchObject({ queued: 1 });
    expect((await deliveries(hook.id)).filter((d) => d.status === 'pending').map((d) => d.event_id).sort()).toEqual([old, recent].sort());
    expect((await recovery.recover(accountId, hook.id, threeHoursAgo)).queued).toBe(0);
  });
  it('the event log lists events recovered after an outage at their own time: a From/Until filter over the outage finds them', async () => {
    const { dataSource, api } = harness;
    const hook = await endpoint('/outage-log', ['alarm.created']);
    const accountId = hook.account_id;
    await dataSource.query(`UPDATE webhook_endpoints SET created_at = now() - interval '1 hour' WHERE id = $1`, [hook.id]);
    await harness.service.disable(accountId, hook.id);
    // Committed while the endpoint was disabled, 20 to 10 minutes ago: the fan-out gives it nothing.
    const missed = [await published(accountId), await published(accountId), await published(accountId)];
    await waitFor('fan-out of the events published while disabled', async () =>
      (await deliveries(hook.id)).filter((d) => missed.includes(d.event_id) && d.status === 'skipped').length === missed.length,
    );
    // The outage was 20 to 10 minutes ago: the events and their fan-out happened then.
    const minutesAgo = [20, 15, 10];
    for (const [i, id] of missed.entries()) {
      await dataSource.query(`UPDATE outbox_events SET created_at = now() - make_interval(mins => $2) WHERE id = $1`, [id, minutesAgo[i]]);
      await dataSource.query(`UPDATE webhook_deliveries SET created_at = now() - make_interval(mins => $2), completed_at = now() - make_interval(mins => $2) WHERE event_id = $1`, [id, minutesAgo[i]]);
    }
    const admin: PanelBrowser = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    const minute = (ago: number): string => new Date(Date.now() - ago * 60_000).toISOString().slice(0, 16);
    const listedIn = (text: string): string[] => [...text.matchAll(/webhook-events\/([0-9a-f-]{36})\//g)].map((m) => m[1]);

    // Before any recovery: listed at their own time, newest first, as not sent.
    const notSent = await admin.agent.get(`/panel/webhook-events/?from=${minute(25)}&to=${minute(5)}&endpoint=${hook.id}&outcome=not_sent`).expect(200);
    expect(listedIn(notSent.text)).toEqual([...missed].reverse());
    expect(notSent.text).toContain('Not sent');
    const page = await admin.agent.get(`/panel/webhook-events/${missed[0]}/`).expect(200);
    expect(page.text).toContain('Not sent: the endpoint was disabled');
    expect(page.text).toMatch(/id="payload"[^>]*><code>[^<]*alarm\.created/); // the payload, from the outbox: no delivery holds its bytes

    await harness.service.enable(accountId, hook.id);
    const recovery = new WebhookRecovery(dataSource, { retentionDays: harness.config.webhookRetentionDays });
    expect((await recovery.recover(accountId, hook.id, new Date(Date.now() - 30 * 60_000))).queued).toBe(3);

    // After it: still at their own time, now queued by the recovery.
    const outage = await admin.agent.get(`/panel/webhook-events/?from=${minute(25)}&to=${minute(5)}`).expect(200);
    expect(listedIn(outage.text)).toEqual([...missed].reverse());
    const recovered = await admin.agent.get(`/panel/webhook-events/${missed[0]}/`).expect(200);
    expect(recovered.text).toContain('Not sent: the endpoint was disabled');
    // The page gives the event's time (20 minutes ago), not the recovery's.
    const shown = Date.parse(/<dt>Time<\/dt><dd><time datetime="([^"]+)"/.exec(recovered.text)?.[1] ?? '');
    expect(Math.abs(Date.now() - 20 * 60_000 - shown)).toBeLessThan(60_000);
    expect(recovered.text).toMatch(/Recovery, queued <time[^>]*>[^<]+<\/time>: <span class="status (ok|bad)">(Queued|Delivered|Failing, will retry)</);
    const now = await admin.agent.get(`/panel/webhook-events/?from=${minute(4)}`).expect(200);
    for (const id of missed) expect(now.text).not.toContain(id);
  });
});
