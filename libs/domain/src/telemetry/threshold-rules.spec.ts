import { toThresholds } from '../devices';
import { alarmMessage, delayMsOf, findQualifyingRun, limitsOf, THRESHOLD_RULES, violates, type Sample } from './threshold-rules';

const MIN = 60_000;
const rule = (type: string) => THRESHOLD_RULES.find((r) => r.type === type)!;
const samples = (...pairs: Array<[number, number]>): Sample[] => pairs.map(([minute, value]) => ({ at: minute * MIN, value }));
const all = () => true;

describe('threshold rules', () => {
  it('takes the limits of the measurement, or none when it is not monitored', () => {
    const thresholds = toThresholds({ temperature_min: 2, temperature_max: 8, shock_max: 3 });
    expect(limitsOf(rule('TEMPERATURE'), thresholds)).toEqual({ min: 2, max: 8 });
    expect(limitsOf(rule('SHOCK'), thresholds)).toEqual({ min: null, max: 3 });
    expect(limitsOf(rule('HUMIDITY'), thresholds)).toBeNull();
    expect(violates(1.9, { min: 2, max: 8 })).toBe(true);
    expect(violates(2, { min: 2, max: 8 })).toBe(false);
    expect(violates(8, { min: 2, max: 8 })).toBe(false);
    expect(violates(8.01, { min: null, max: 8 })).toBe(true);
  });

  it('delays temperature, humidity and light, never shock or battery', () => {
    const thresholds = toThresholds({ delay_minutes: 15 });
    expect(THRESHOLD_RULES.map((r) => [r.type, delayMsOf(r, thresholds) / MIN])).toEqual([
      ['TEMPERATURE', 15], ['HUMIDITY', 15], ['LIGHT', 15], ['SHOCK', 0], ['BATTERY', 0],
    ]);
    expect(delayMsOf(rule('TEMPERATURE'), toThresholds({}))).toBe(0);
  });

  it('writes a readable message', () => {
    expect(alarmMessage(rule('TEMPERATURE'), { min: 2, max: 8 }, 1.234, 0)).toBe('Temperature 1.23 °C below the minimum of 2 °C.');
    expect(alarmMessage(rule('HUMIDITY'), { min: null, max: 70 }, 75, 30 * MIN)).toBe('Humidity 75 %RH above the maximum of 70 %RH for at least 30 min.');
  });
});

describe('findQualifyingRun', () => {
  const limits = { min: 2, max: 8 };

  it('needs a run of violating samples lasting the delay', () => {
    expect(findQualifyingRun(samples([0, 9], [5, 9]), all, limits, 10 * MIN)).toBeNull();
    expect(findQualifyingRun(samples([0, 9], [5, 9], [10, 1]), all, limits, 10 * MIN)).toEqual({
      first: { at: 0, value: 9 }, last: { at: 10 * MIN, value: 1 }, trigger: { at: 10 * MIN, value: 1 },
    });
  });

  it('restarts the clock after a sample within limits', () => {
    expect(findQualifyingRun(samples([0, 9], [5, 5], [10, 9], [15, 9]), all, limits, 10 * MIN)).toBeNull();
    expect(findQualifyingRun(samples([0, 9], [5, 5], [10, 9], [15, 9], [20, 9]), all, limits, 10 * MIN)?.first.at).toBe(10 * MIN);
  });

  it('with no delay, any violating sample qualifies', () => {
    expect(findQualifyingRun(samples([0, 5], [1, 8.5], [2, 5]), all, limits, 0)).toEqual({
      first: { at: MIN, value: 8.5 }, last: { at: MIN, value: 8.5 }, trigger: { at: MIN, value: 8.5 },
    });
    expect(findQualifyingRun(samples([0, 5], [1, 8]), all, limits, 0)).toBeNull();
  });

  it('only counts runs that contain a new sample', () => {
    const isNew = (s: Sample) => s.at >= 30 * MIN;
    // an old qualifying run (judged when it was new) and a new short one
    expect(findQualifyingRun(samples([0, 9], [10, 9], [20, 5], [30, 9]), isNew, limits, 10 * MIN)).toBeNull();
    expect(findQualifyingRun(samples([0, 9], [10, 9], [20, 5], [30, 9], [40, 9]), isNew, limits, 10 * MIN)?.trigger.at).toBe(40 * MIN);
  });

  it('picks the trigger as the first sample reaching the delay', () => {
    expect(findQualifyingRun(samples([0, 9], [4, 9], [8, 9], [12, 9], [16, 9]), all, limits, 10 * MIN)?.trigger).toEqual({ at: 12 * MIN, value: 9 });
  });
});
