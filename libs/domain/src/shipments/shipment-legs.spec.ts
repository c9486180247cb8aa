import { activeLeg, presentLegs, toStoredLegs } from './shipment-legs';

const NOW = new Date('2025-07-02T12:00:00Z');
const legs = toStoredLegs([
  { mode: 'sea', vessel_mmsi: '271000123', from_location_id: 'a', to_location_id: 'b', planned_arrival_at: '2025-07-02T06:00:00Z' },
  { mode: 'road', from_location_id: 'b', to_location_id: 'c', planned_arrival_at: '2025-07-03T06:00:00Z' },
  { mode: 'air', from_location_id: 'c', to_location_id: 'd' },
]);

describe('transport legs', () => {
  it('fills missing keys with null', () => {
    expect(toStoredLegs([{ mode: 'rail' }])).toEqual([
      { mode: 'rail', carrier_id: null, vessel_mmsi: null, vessel_imo: null, from_location_id: null, to_location_id: null, planned_departure_at: null, planned_arrival_at: null },
    ]);
    expect(toStoredLegs(null)).toEqual([]);
  });

  it('completes a leg by its planned arrival or by reaching its destination; the first open one is active', () => {
    const byTime = presentLegs(legs, { now: NOW, reached: new Set(), completed: false });
    expect(byTime.map((l) => l.completed)).toEqual([true, false, false]);
    expect(activeLeg(byTime)).toMatchObject({ index: 1, mode: 'road' });
    const reached = presentLegs(legs, { now: new Date('2025-07-01T00:00:00Z'), reached: new Set(['b', 'c']), completed: false });
    expect(reached.map((l) => l.completed)).toEqual([true, true, false]);
    expect(activeLeg(reached)).toMatchObject({ index: 2, mode: 'air' });
    const early = presentLegs(legs, { now: new Date('2025-07-01T00:00:00Z'), reached: new Set(), completed: false });
    expect(activeLeg(early)).toMatchObject({ index: 0, vessel_mmsi: '271000123' });
  });

  it('has no active leg once the shipment is completed or without legs', () => {
    expect(activeLeg(presentLegs(legs, { now: NOW, reached: new Set(), completed: true }))).toBeNull();
    expect(activeLeg(presentLegs([], { now: NOW, reached: new Set(), completed: false }))).toBeNull();
  });
});
