// The two charts of the panel, drawn with chart.js in the editor's theme: the live chart
// (P50/P90/P99/P99.9 per second on a log latency axis, throughput and errors on a second axis)
// and the whole-run percentile plot (latency against 1/(1-p) on log axes, one curve per run).
// Colors come from the --vscode-* variables, read again whenever the theme changes.
import type * as ChartJs from 'chart.js' with { 'resolution-mode': 'import' };
import type { Chart as ChartT, ChartDataset } from 'chart.js' with { 'resolution-mode': 'import' };
import type { SecondSample } from '../../protocol/bench';
import {
  formatMs,
  liveSeries,
  livePointCount,
  percentileCurve,
  PERCENTILE_TICKS,
  readableLogTicks,
  xToPercentile,
  type Point,
} from '../../protocol/shape';

// chart.js ships ESM types while this project type-checks as CommonJS: load it through require
// (esbuild bundles its CommonJS build) and take the types from the ESM declaration.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const chartjs = require('chart.js') as typeof ChartJs;
const { Chart, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, Tooltip } = chartjs;
Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip);

interface Theme {
  fg: string;
  grid: string;
  font: string;
  colors: { p50: string; p90: string; p99: string; p999: string; rps: string; errors: string; a: string; b: string };
  width: number;
}

function cssVar(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const v = style.getPropertyValue(name).trim();
  return v || fallback;
}

export function readTheme(): Theme {
  const style = getComputedStyle(document.documentElement);
  const body = getComputedStyle(document.body);
  const get = (name: string, fallback: string) => cssVar(style, name, cssVar(body, name, fallback));
  const hc = document.body.classList.contains('vscode-high-contrast');
  const fg = get('--vscode-charts-foreground', get('--vscode-foreground', '#cccccc'));
  return {
    fg,
    grid: get('--vscode-charts-lines', 'rgba(128,128,128,0.35)'),
    font: get('--vscode-font-family', 'sans-serif'),
    colors: {
      p50: get('--vscode-charts-green', '#89d185'),
      p90: get('--vscode-charts-yellow', '#cca700'),
      p99: get('--vscode-charts-red', '#f14c4c'),
      p999: get('--vscode-charts-purple', '#b180d7'),
      rps: get('--vscode-charts-blue', '#3794ff'),
      errors: get('--vscode-charts-orange', '#d18616'),
      a: get('--vscode-charts-orange', '#d18616'),
      b: get('--vscode-charts-blue', '#3794ff'),
    },
    width: hc ? 2.5 : 1.5,
  };
}

type LineDataset = ChartDataset<'line', Point[]>;

export class Charts {
  private readonly live: ChartT<'line', Point[]>;
  private readonly dist: ChartT<'line', Point[]>;
  private theme = readTheme();

  constructor(liveCanvas: HTMLCanvasElement, distCanvas: HTMLCanvasElement) {
    const t = this.theme;
    this.live = new Chart<'line', Point[]>(liveCanvas, {
      type: 'line',
      data: {
        datasets: [
          this.line('P50', 'p50', 'latency'),
          this.line('P90', 'p90', 'latency'),
          this.line('P99', 'p99', 'latency'),
          this.line('P99.9', 'p999', 'latency'),
          { ...this.line('Throughput (req/s)', 'rps', 'rps'), borderDash: [6, 3] },
          { ...this.line('Errors /s', 'errors', 'rps'), borderDash: [2, 2] },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', title: { display: true, text: 'second (warm-up ≤ 0)' }, ticks: { precision: 0 } },
          latency: {
            type: 'logarithmic',
            position: 'left',
            title: { display: true, text: 'latency (ms)' },
            afterBuildTicks: (axis) => {
              axis.ticks = readableLogTicks(axis.ticks);
            },
            ticks: { callback: (v) => formatMs(Number(v)) },
          },
          rps: {
            type: 'linear',
            position: 'right',
            beginAtZero: true,
            title: { display: true, text: 'req/s · errors/s' },
            grid: { drawOnChartArea: false },
          },
        },
        plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: {} } },
      },
    });
    this.dist = new Chart<'line', Point[]>(distCanvas, {
      type: 'line',
      data: { datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        scales: {
          x: {
            type: 'logarithmic',
            min: 1,
            title: { display: true, text: 'percentile' },
            afterBuildTicks: (axis) => {
              const max = axis.max;
              axis.ticks = PERCENTILE_TICKS.filter((tk) => tk.x <= max * 1.0001).map((tk) => ({ value: tk.x }));
            },
            ticks: { callback: (v) => PERCENTILE_TICKS.find((tk) => tk.x === Number(v))?.label ?? '' },
          },
          y: {
            type: 'logarithmic',
            title: { display: true, text: 'latency (ms)' },
            afterBuildTicks: (axis) => {
              axis.ticks = readableLogTicks(axis.ticks);
            },
            ticks: { callback: (v) => formatMs(Number(v)) },
          },
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              label: (ctx) => {
                const p = ctx.raw as Point;
                return `${ctx.dataset.label}: ${formatMs(p.y)} at ${xToPercentile(p.x).toFixed(4)}%`;
              },
            },
          },
        },
      },
    });
    this.applyTheme(t);
  }

  private line(label: string, color: keyof Theme['colors'], yAxisID: string): LineDataset {
    return {
      label,
      data: [],
      yAxisID,
      borderColor: this.theme.colors[color],
      backgroundColor: this.theme.colors[color],
      borderWidth: this.theme.width,
      pointRadius: 1.5,
      tension: 0,
    };
  }

  /** Replaces the live chart's data; returns the number of seconds shown. */
  setLive(samples: readonly SecondSample[]): number {
    const s = liveSeries(samples);
    const d = this.live.data.datasets;
    d[0].data = s.p50;
    d[1].data = s.p90;
    d[2].data = s.p99;
    d[3].data = s.p999;
    d[4].data = s.rps;
    d[5].data = s.errors;
    this.live.update('none');
    return livePointCount(s);
  }

  /** One curve per run (A dashed, B solid); returns the number of curves drawn. */
  setDistribution(curves: { label: string; distribution: [number, number][]; dashed: boolean }[]): number {
    const t = this.theme;
    const palette = [t.colors.b, t.colors.a, t.colors.p50, t.colors.p999];
    this.dist.data.datasets = curves.map((c, i) => ({
      label: c.label,
      data: percentileCurve(c.distribution),
      borderColor: curves.length === 2 ? (c.dashed ? t.colors.a : t.colors.b) : palette[i % palette.length],
      backgroundColor: curves.length === 2 ? (c.dashed ? t.colors.a : t.colors.b) : palette[i % palette.length],
      borderDash: c.dashed ? [6, 4] : [],
      borderWidth: t.width,
      pointRadius: 0,
    }));
    this.dist.update('none');
    return curves.length;
  }

  /** Re-reads the theme's colors and redraws both charts. */
  applyTheme(theme = readTheme()): void {
    this.theme = theme;
    Chart.defaults.color = theme.fg;
    Chart.defaults.font.family = theme.font;
    const keys: (keyof Theme['colors'])[] = ['p50', 'p90', 'p99', 'p999', 'rps', 'errors'];
    this.live.data.datasets.forEach((ds, i) => {
      ds.borderColor = theme.colors[keys[i]];
      ds.backgroundColor = theme.colors[keys[i]];
      ds.borderWidth = theme.width;
    });
    const n = this.dist.data.datasets.length;
    this.dist.data.datasets.forEach((ds) => {
      const color = n === 2 && Array.isArray(ds.borderDash) && ds.borderDash.length ? theme.colors.a : theme.colors.b;
      ds.borderColor = color;
      ds.backgroundColor = color;
      ds.borderWidth = theme.width;
    });
    for (const chart of [this.live, this.dist]) {
      for (const scale of Object.values(chart.options.scales ?? {})) {
        if (!scale) continue;
        scale.grid = { ...(scale.grid ?? {}), color: theme.grid };
        scale.ticks = { ...(scale.ticks ?? {}), color: theme.fg } as typeof scale.ticks;
        const title = (scale as { title?: { color?: string } }).title;
        if (title) title.color = theme.fg;
      }
      const legend = chart.options.plugins?.legend;
      if (legend) legend.labels = { ...(legend.labels ?? {}), color: theme.fg };
      chart.update('none');
    }
  }
}
