/**
 * ΔH/R for the mean kinetic temperature: the activation energy ΔH = 83.144 kJ/mol (USP <1079>,
 * ICH Q1A) over the gas constant R = 8.3144 J/(mol·K) gives 10 000 K.
 */
export const MKT_ACTIVATION_OVER_R_K = 83_144 / 8.3144;
export const KELVIN_OFFSET = 273.15;

/**
 * Running sums of the MKT formula:
 *   MKT = (ΔH/R) / −ln( (1/n) Σ exp(−(ΔH/R) / T_i) )   with T_i in kelvin,
 * over readings taken at equal intervals (each reading weighs the same).
 */
export class MktAccumulator {
  private count = 0;
  private sum = 0;

  add(celsius: number): void {
    this.count++;
    this.sum += Math.exp(-MKT_ACTIVATION_OVER_R_K / (celsius + KELVIN_OFFSET));
  }

  merge(other: MktAccumulator): void {
    this.count += other.count;
    this.sum += other.sum;
  }

  /** °C, or null without readings. */
  celsius(): number | null {
    if (this.count === 0) return null;
    return MKT_ACTIVATION_OVER_R_K / -Math.log(this.sum / this.count) - KELVIN_OFFSET;
  }
}

export function meanKineticTemperature(celsius: readonly number[]): number | null {
  const accumulator = new MktAccumulator();
  for (const value of celsius) accumulator.add(value);
  return accumulator.celsius();
}
