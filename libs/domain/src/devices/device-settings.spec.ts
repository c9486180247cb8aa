import { presetThresholds } from './alert-preset-thresholds';
import { effectiveThresholds, EMPTY_THRESHOLDS, inconsistentThresholds, toSensors, toThresholds } from './device-settings';

describe('device settings', () => {
  it('normalises stored thresholds and sensors', () => {
    expect(toThresholds({ temperature_max: 8, humidity_min: '30.5', battery_min: 'low', other: 1 })).toEqual({
      ...EMPTY_THRESHOLDS, temperature_max: 8, humidity_min: 30.5,
    });
    expect(toThresholds(null)).toEqual(EMPTY_THRESHOLDS);
    expect(toSensors({ light: false, location: 'no' })).toEqual({ temperature: true, humidity: true, light: false, shock: true, location: true });
  });

  it('uses the device’s own value where it has one, otherwise the alert preset’s', () => {
    const own = toThresholds({ temperature_max: 6, delay_minutes: 0 });
    const preset = toThresholds({ temperature_min: 2, temperature_max: 8, humidity_max: 70, delay_minutes: 15 });
    expect(effectiveThresholds(own, preset)).toEqual({ ...EMPTY_THRESHOLDS, temperature_min: 2, temperature_max: 6, humidity_max: 70, delay_minutes: 0 });
    expect(effectiveThresholds(own, null)).toEqual(own);
  });

  it('reads a preset row whether its thresholds are columns or a jsonb object', () => {
    expect(presetThresholds({ id: 'p', account_id: 'a', name: 'Vaccines', temperature_min: 2, temperature_max: '8.0' })).toMatchObject({ temperature_min: 2, temperature_max: 8 });
    expect(presetThresholds({ id: 'p', thresholds: { shock_max: 4, delay_minutes: 5 } })).toMatchObject({ shock_max: 4, delay_minutes: 5 });
  });

  it('finds a minimum above its maximum', () => {
    expect(inconsistentThresholds(toThresholds({ temperature_min: 9, temperature_max: 8, humidity_min: 10, humidity_max: 10 }))).toEqual([
      { field: 'temperature_min', message: 'temperature_min must not be greater than temperature_max' },
    ]);
  });
});
