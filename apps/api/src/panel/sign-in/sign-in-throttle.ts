import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { clientAddressKey } from '../../common/rate-limits/client-address';
import { retryAfterSeconds } from '../../common/rate-limits/rate-limits';
import { sharedCounter } from '../../common/rate-limits/shared-counter';
import { APP_CONFIG } from '../../config/config.module';

/** Window of the per-address attempt limit (PANEL_SIGN_IN_ATTEMPTS_PER_IP). */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** Window of the failure counts: per e-mail (the ceiling) and per (e-mail, client network). */
export const SIGN_IN_FAILURE_WINDOW_SECONDS = 24 * 3600;
/** How long a client network where an e-mail signed in stays exempt from that e-mail's ceiling. */
export const SIGN_IN_KNOWN_NETWORK_SECONDS = 30 * 24 * 3600;
/** Budget of the counters that only count (delays taken, known networks): never the limit that refuses. */
const UNBOUNDED = 1_000_000_000;

export type ThrottleCheck = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Login throttling after OWASP's Authentication Cheat Sheet (counters in PostgreSQL through
 * rate-limiter-flexible, shared by every api replica). A hard lock per e-mail address let anyone
 * who knew an address lock its owner out from anywhere; instead:
 *
 * - per (e-mail, client network) — an IPv4 address or an IPv6 /64, as `clientAddressKey` counts
 *   clients — PANEL_SIGN_IN_FAILURES_PER_NETWORK failures are free, then each further attempt from
 *   that network waits a delay that doubles from 1 s up to PANEL_SIGN_IN_MAX_DELAY_SECONDS
 *   (rate-limiter-flexible's ExpressBruteFlexible pattern: a free counter, then a one-point block
 *   whose duration grows with the delays already taken). An attacker's failures slow only the
 *   attacker's own networks;
 * - per e-mail, a much higher ceiling, PANEL_SIGN_IN_FAILURES_PER_EMAIL per 24 hours, bounds the
 *   guesses from all networks together. Networks where the address signed in during the last 30
 *   days are exempt from it (they keep their own per-network delays), so an attack from elsewhere
 *   that spends the ceiling does not lock the owner out of their usual network;
 * - per client network, PANEL_SIGN_IN_ATTEMPTS_PER_IP attempts per 15 minutes, whatever the e-mail
 *   (spraying many addresses).
 * The same counters apply to addresses without an account, so being throttled says nothing about
 * whether an account exists.
 *
 * Every counter is taken *before* the password is checked: a check that read the count first and
 * added to it after the (deliberately slow) hash comparison let parallel requests all read the
 * same count. A refused attempt gives back what it took of the ceiling (it checked nothing); a
 * success clears its network's failures and gives back its own point of the ceiling, not the
 * attacker's.
 */
@Injectable()
export class SignInThrottle {
  private readonly perIp: RateLimiterAbstract;
  private readonly perEmail: RateLimiterAbstract;
  private readonly freeFailures: RateLimiterAbstract;
  private readonly delaysTaken: RateLimiterAbstract;
  private readonly waiting: RateLimiterAbstract;
  private readonly knownNetworks: RateLimiterAbstract;
  private readonly maxDelaySeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectDataSource() dataSource: DataSource) {
    this.maxDelaySeconds = config.panelSignInMaxDelaySeconds;
    this.perIp = sharedCounter(dataSource, 'panel-sign-in-ip', config.panelSignInAttemptsPerIp, SIGN_IN_WINDOW_SECONDS);
    this.perEmail = sharedCounter(dataSource, 'panel-sign-in-email', config.panelSignInFailuresPerEmail, SIGN_IN_FAILURE_WINDOW_SECONDS);
    this.freeFailures = sharedCounter(dataSource, 'panel-sign-in-network', config.panelSignInFailuresPerNetwork, SIGN_IN_FAILURE_WINDOW_SECONDS);
    this.delaysTaken = sharedCounter(dataSource, 'panel-sign-in-network-delays', UNBOUNDED, SIGN_IN_FAILURE_WINDOW_SECONDS);
    this.waiting = sharedCounter(dataSource, 'panel-sign-in-network-wait', 1, this.maxDelaySeconds);
    this.knownNetworks = sharedCounter(dataSource, 'panel-sign-in-known-network', UNBOUNDED, SIGN_IN_KNOWN_NETWORK_SECONDS);
  }

  /** Takes this attempt's turn on every counter; refuses when one of them is spent or waiting. */
  async attempt(ip: string | undefined, email: string): Promise<ThrottleCheck> {
    const network = clientAddressKey(ip);
    const pair = pairKey(network, email);
    let tookCeiling = false;
    try {
      await this.perIp.consume(network);
      if (!(await this.knownNetworks.get(pair))) {
        await this.perEmail.consume(email);
        tookCeiling = true;
      }
      await this.networkTurn(pair);
      return { allowed: true };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      if (tookCeiling) await this.perEmail.reward(email);
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext) };
    }
  }

  /** A right password: its network's failures are cleared and remembered as the address's own. */
  async succeeded(ip: string | undefined, email: string): Promise<void> {
    const pair = pairKey(clientAddressKey(ip), email);
    const known = (await this.knownNetworks.get(pair)) !== null;
    await Promise.all([this.freeFailures.delete(pair), this.delaysTaken.delete(pair), this.waiting.delete(pair)]);
    if (!known) await this.perEmail.reward(email);
    await this.knownNetworks.set(pair, 1, SIGN_IN_KNOWN_NETWORK_SECONDS); // each sign-in renews the 30 days
  }

  /** Free while the network has failures left; then one attempt per growing delay. */
  private async networkTurn(pair: string): Promise<void> {
    try {
      await this.freeFailures.consume(pair);
      return;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    }
    const taken = (await this.delaysTaken.get(pair))?.consumedPoints ?? 0;
    const delaySeconds = Math.min(2 ** Math.min(taken, 30), this.maxDelaySeconds);
    // The first attempt to take the one-point block passes and starts the wait; the others are refused until it ends.
    const turn = await this.waiting.penalty(pair, 1, { customDuration: delaySeconds });
    if (turn.consumedPoints > 1) throw turn;
    await this.delaysTaken.penalty(pair, 1);
  }
}

/** The network first: it never contains the separator, so no two pairs share a key. */
const pairKey = (network: string, email: string): string => `${network}|${email}`;
