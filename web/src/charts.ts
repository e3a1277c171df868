/**
 * Charts (Chart.js, only the parts used): line charts of time series, broken where the data has
 * gaps (gaps.ts), and bar charts of per-period figures.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  Tooltip,
  type ChartDataset,
} from 'chart.js';
import { toFont } from 'chart.js/helpers';
import { withBreaks, type XY } from './gaps';
import { tickLabel, ticksThatFit, timeTicks } from './time-axis';
import type { Point } from './types';

Chart.register(LineController, LineElement, PointElement, LinearScale, Legend, Tooltip, BarController, BarElement, CategoryScale);

export interface SeriesSpec {
  label: string;
  points: Point[] | undefined;
  color: string;
  /** the right-hand axis */
  right?: boolean;
  /** sparse values (one per charge…): dots joined by a line, never broken at gaps */
  dots?: boolean;
  /** seconds between two values that are never a gap (default gaps.ts MAX_GAP, 30 min) */
  maxGap?: number;
}

export interface ChartSpec {
  from: number;
  to: number;
  left: string;
  right?: string;
  series: SeriesSpec[];
}

/** Pixels kept free between two tick labels of the time axis. */
const LABEL_GAP = 24;

/** The width of a tick label in the ticks' font (Chart.js's default font; not set here). */
function labelWidth(ctx: CanvasRenderingContext2D, text: string): number {
  ctx.save();
  ctx.font = toFont(Chart.defaults.font).string;
  const w = ctx.measureText(text).width;
  ctx.restore();
  return w;
}

/** True when a spec has at least one point to draw. */
export function hasData(spec: ChartSpec): boolean {
  return spec.series.some((s) => (s.points?.length ?? 0) > 0);
}

/** Draws a chart on the canvas; destroy() the result before drawing another on it. */
export function lineChart(canvas: HTMLCanvasElement, spec: ChartSpec): Chart<'line', XY[]> {
  const span = spec.to - spec.from;
  // the time axis (epoch seconds), for the end-to-end test
  canvas.dataset.from = String(spec.from);
  canvas.dataset.to = String(spec.to);
  let breaks = 0;
  const datasets: ChartDataset<'line', XY[]>[] = spec.series
    .filter((s) => (s.points?.length ?? 0) > 0)
    .map((s) => {
      const { data, alone } = s.dots
        ? { data: [...(s.points ?? [])].sort((a, b) => a[0] - b[0]).map(([t, v]) => ({ x: t * 1000, y: v })), alone: null }
        : withBreaks(s.points ?? [], s.maxGap);
      breaks += data.filter((p) => p.y === null).length;
      return {
        label: s.label,
        data,
        borderColor: s.color,
        backgroundColor: s.color,
        borderWidth: 2,
        // a value alone between two gaps is a dot, not nothing
        pointRadius: (c: { dataIndex: number }) => (alone === null ? 3 : alone.has(c.dataIndex) ? 2.5 : 0),
        pointHitRadius: 6,
        tension: 0,
        spanGaps: false,
        yAxisID: s.right ? 'y2' : 'y',
      };
    });
  // how many times the lines break (for the end-to-end test)
  canvas.dataset.breaks = String(breaks);
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
            // as many ticks as labels fit side by side: "09:00 AM" and "12:00 PM" never touch
            const widest = labelWidth(scale.ctx, tickLabel(Date.UTC(2026, 11, 28, 22, 58), span));
            const fit = ticksThatFit(scale.width, widest, LABEL_GAP);
            scale.ticks = timeTicks(spec.from, spec.to, Math.min(8, fit)).map((value) => ({ value }));
          },
          afterUpdate: (scale) => {
            // what the axis shows (after Chart.js skipped any labels), for the end-to-end test: the
            // labels, the narrowest room between two of them (px), the width they were laid out for
            const labels = scale.ticks.map((t) => String(t.label ?? ''));
            let room = Number.POSITIVE_INFINITY;
            for (let i = 1; i < scale.ticks.length; i++) {
              const a = scale.getPixelForValue(scale.ticks[i - 1]!.value) + labelWidth(scale.ctx, labels[i - 1]!) / 2;
              const b = scale.getPixelForValue(scale.ticks[i]!.value) - labelWidth(scale.ctx, labels[i]!) / 2;
              room = Math.min(room, b - a);
            }
            canvas.dataset.xLabels = labels.join('|');
            canvas.dataset.xRoom = Number.isFinite(room) ? String(Math.floor(room)) : '';
            canvas.dataset.xWidth = String(scale.chart.width);
          },
          ticks: { maxRotation: 0, autoSkipPadding: LABEL_GAP / 2, callback: (v) => tickLabel(Number(v), span) },
        },
        y: axis(spec.left, 'left'),
        ...(spec.right && datasets.some((d) => d.yAxisID === 'y2') ? { y2: axis(spec.right, 'right') } : {}),
      },
      plugins: {
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

export interface BarSpec {
  /** one label per bar group (e.g. the month) */
  labels: string[];
  /** the value axis' title */
  axis: string;
  series: { label: string; values: (number | null)[]; color: string }[];
}

/** A bar chart of per-period figures; destroy() the result before drawing another on it. */
export function barChart(canvas: HTMLCanvasElement, spec: BarSpec): Chart<'bar', (number | null)[]> {
  canvas.dataset.bars = String(spec.labels.length);
  return new Chart<'bar', (number | null)[]>(canvas, {
    type: 'bar',
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s) => ({ label: s.label, data: s.values, backgroundColor: s.color, borderRadius: 3, maxBarThickness: 42 })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: { type: 'category', ticks: { maxRotation: 0, autoSkip: true } },
        y: { type: 'linear', beginAtZero: true, title: { display: true, text: spec.axis } },
      },
      plugins: { legend: { display: spec.series.length > 1, position: 'bottom' } },
    },
  });
}
