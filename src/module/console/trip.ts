/**
 * What `stat trip` reports about the current drive (docs/protocol/module-console.md §4.2), kept as the firmware
 * keeps it: when the vehicle switches on (`v.e.on` becomes true) the SOC, estimated range,
 * altitude and time are noted and the speed average restarts; each speed change while on adds a
 * sample.
 */
import type { MetricSet } from '../../core/metrics/metric-set.js';

export class TripTracker {
  private startSoc: number;
  private startRange: number;
  private startAltitude: number;
  private startTime: number;
  private speedSum = 0;
  private speedCount = 0;
  private readonly stop: () => void;

  constructor(
    private readonly metrics: MetricSet,
    private readonly now: () => number,
  ) {
    this.startSoc = metrics.num('v.b.soc') ?? 0;
    this.startRange = metrics.num('v.b.range.est') ?? 0;
    this.startAltitude = metrics.num('v.p.altitude') ?? 0;
    this.startTime = now();
    this.stop = metrics.onChange((name, value) => {
      if (name === 'v.e.on' && value === true) this.restart();
      else if (name === 'v.p.speed' && typeof value === 'number' && this.metrics.bool('v.e.on')) {
        this.speedSum += value;
        this.speedCount++;
      }
    });
  }

  private restart(): void {
    this.startSoc = this.metrics.num('v.b.soc') ?? 0;
    this.startRange = this.metrics.num('v.b.range.est') ?? 0;
    this.startAltitude = this.metrics.num('v.p.altitude') ?? 0;
    this.startTime = this.now();
    this.speedSum = 0;
    this.speedCount = 0;
  }

  /** Values at the start of the drive, its duration and the average speed (km/h). */
  snapshot(): { soc: number; range: number; altitude: number; seconds: number; speedAvg: number } {
    return {
      soc: this.startSoc,
      range: this.startRange,
      altitude: this.startAltitude,
      seconds: Math.max(0, Math.floor(this.now() - this.startTime)),
      speedAvg: this.speedCount > 0 ? this.speedSum / this.speedCount : 0,
    };
  }

  dispose(): void {
    this.stop();
  }
}
