/** How numbers, times and durations read in the report files (PDF and CSV share these). */
export const formatCelsius = (value: number): string => `${value.toFixed(2)} °C`;
export const formatNumber = (value: number | null, digits = 2): string => (value === null ? '-' : value.toFixed(digits));
export const formatTime = (value: Date): string => `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
export const formatMinutes = (ms: number | null): string => (ms === null ? '-' : `${Math.round(ms / 60_000)} min`);
