/** Line charts of time series (Chart.js, only the parts used: linear axes, lines, decimation). */
import {
  Chart,
  Decimation,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  Tooltip,
  type ChartDataset,
} from 'chart.js';
import type { Point } from './types';

Chart.register(LineController, LineElement, PointElement, LinearScale, Legend, Tooltip, Decimation);

export interface SeriesSpec {
  label: string;
  points: Point[] | undefined;
  color: string;
  /** the right-hand axis */
  right?: boolean;
}

export interface ChartSpec {
  from: number;
  to: number;
  left: string;
  right?: string;
  series: SeriesSpec[];
}

type XY = { x: number; y: number };

/** Tick steps in minutes: the smallest giving at most 8 ticks over the span is used. */
const STEPS_MIN = [5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080];

/** Ticks at round local times (whole hours, midnights) between two epoch-second times, in ms. */
export function timeTicks(from: number, to: number): number[] {
  const span = to - from;
  const step = STEPS_MIN.find((m) => span / (m * 60) <= 8) ?? 10080;
  const d = new Date(from * 1000);
  d.setHours(0, 0, 0, 0); // local midnight: the steps divide a day (or are whole days)
  const ticks: number[] = [];
  while (d.getTime() <= to * 1000) {
    if (d.getTime() >= from * 1000) ticks.push(d.getTime());
    d.setMinutes(d.getMinutes() + step); // wall-clock steps, also across daylight-saving changes
  }
  return ticks;
}

function tickLabel(ms: number, span: number): string {
  const d = new Date(ms);
  const hm = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return span > 36 * 3600 ? `${d.toLocaleDateString(undefined, { day: '2-digit', month: '2-digit' })} ${hm}` : hm;
}

/** True when a spec has at least one point to draw. */
export function hasData(spec: ChartSpec): boolean {
  return spec.series.some((s) => (s.points?.length ?? 0) > 0);
}

/** Draws a chart on the canvas; destroy() the result before drawing another on it. */
export function lineChart(canvas: HTMLCanvasElement, spec: ChartSpec): Chart<'line', XY[]> {
  const span = spec.to - spec.from;
  const datasets: ChartDataset<'line', XY[]>[] = spec.series
    .filter((s) => (s.points?.length ?? 0) > 0)
    .map((s) => ({
      label: s.label,
      data: (s.points ?? []).map(([t, v]) => ({ x: t * 1000, y: v })),
      borderColor: s.color,
      backgroundColor: s.color,
      borderWidth: 2,
      pointRadius: 0,
      pointHitRadius: 6,
      tension: 0,
      yAxisID: s.right ? 'y2' : 'y',
    }));
  const axis = (title: string, position: 'left' | 'right') =>
    ({
      type: 'linear',
      position,
      title: { display: true, text: title },
      grid: { drawOnChartArea: position === 'left' },
    }) as const;
  return new Chart<'line', XY[]>(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      animation: false,
      parsing: false,
      normalized: true,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: {
          type: 'linear',
          min: spec.from * 1000,
          max: spec.to * 1000,
          afterBuildTicks: (scale) => {
            scale.ticks = timeTicks(spec.from, spec.to).map((value) => ({ value }));
          },
          ticks: { maxRotation: 0, callback: (v) => tickLabel(Number(v), span) },
        },
        y: axis(spec.left, 'left'),
        ...(spec.right && datasets.some((d) => d.yAxisID === 'y2') ? { y2: axis(spec.right, 'right') } : {}),
      },
      plugins: {
        decimation: { enabled: true, algorithm: 'lttb', samples: 400 },
        legend: { position: 'bottom' },
        tooltip: {
          callbacks: {
            title: (items) => (items[0] ? new Date(items[0].parsed.x ?? 0).toLocaleString() : ''),
          },
        },
      },
    },
  });
}
