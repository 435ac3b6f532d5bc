// The benchmark panel's UI: the run form, the live per-second chart, the whole-run percentile
// plot, the numbers table, the list of kept runs and the A/B comparison. It talks to the host
// only through the typed messages of protocol/panel.ts, checks every message it receives, and
// keeps what it shows in the webview state so a reload restores it.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-divider/index.js';
import './panel.css';
import { BODYLESS_METHODS, HTTP_METHODS, SCENARIOS, type ScenarioName, type SecondSample } from '../../protocol/bench';
import { sendsOwnRequests } from '../../protocol/scenarios';
import {
  DEFAULT_RUN_OPTIONS,
  LIMITS,
  runOptionsProblem,
  validateHostMessage,
  type HostToPanel,
  type PanelBinary,
  type PanelConfigInfo,
  type PanelRunOptions,
  type PanelToHost,
  type RunRecord,
} from '../../protocol/panel';
import { Charts } from './charts';
import { bottleneckWarning, compareResults, formatMs, formatPercent, formatRps, resultRows, type Change } from '../../protocol/shape';

interface VsCodeApi {
  postMessage(msg: PanelToHost): void;
  getState(): unknown;
  setState(state: PanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What survives a reload of the webview (kept with setState). */
interface PanelState {
  version: 1;
  config: PanelConfigInfo | null;
  options: PanelRunOptions;
  liveRunId: string | null;
  liveLabel: string;
  samples: SecondSample[];
  compare: { a: string | null; b: string | null };
  selected: string | null;
}

const vscode = acquireVsCodeApi();

function loadState(): PanelState {
  const s = vscode.getState() as Partial<PanelState> | undefined;
  const fresh: PanelState = {
    version: 1,
    config: null,
    options: { ...DEFAULT_RUN_OPTIONS },
    liveRunId: null,
    liveLabel: '',
    samples: [],
    compare: { a: null, b: null },
    selected: null,
  };
  if (!s || s.version !== 1) return fresh;
  return {
    ...fresh,
    config: s.config ?? null,
    options: runOptionsProblem(s.options) ? fresh.options : (s.options as PanelRunOptions),
    liveRunId: typeof s.liveRunId === 'string' ? s.liveRunId : null,
    liveLabel: typeof s.liveLabel === 'string' ? s.liveLabel : '',
    samples: Array.isArray(s.samples) ? s.samples : [],
    compare: s.compare ?? fresh.compare,
    selected: typeof s.selected === 'string' ? s.selected : null,
  };
}

const state = loadState();
let runs: RunRecord[] = [];
let running = false;
let enabled = true;
/** Whether an init has arrived since this script started. */
let initSeen = false;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const app = document.getElementById('app')!;
app.innerHTML = `
<header class="head">
  <div class="title"><span id="config-name">No config</span> <span id="status" data-state="idle">Idle</span></div>
  <div class="actions">
    <vscode-button id="run">Run</vscode-button>
    <vscode-button id="stop" secondary disabled>Stop</vscode-button>
  </div>
</header>
<div id="disabled" class="banner hidden"></div>
<div id="error" class="banner error hidden"><span id="error-text"></span> <a href="#" id="error-line" class="hidden"></a></div>
<section class="form">
  <div class="field"><vscode-label for="scenario">Scenario</vscode-label><vscode-single-select id="scenario"></vscode-single-select></div>
  <div class="field"><vscode-label for="model">Load model</vscode-label>
    <vscode-single-select id="model"><vscode-option value="closed">Connections (closed)</vscode-option><vscode-option value="open">Rate (open)</vscode-option></vscode-single-select></div>
  <div class="field" id="connections-field"><vscode-label for="connections">Connections</vscode-label><vscode-textfield id="connections" type="number" min="${LIMITS.connections[0]}" max="${LIMITS.connections[1]}"></vscode-textfield></div>
  <div class="field" id="rate-field"><vscode-label for="rate">Rate (req/s)</vscode-label><vscode-textfield id="rate" type="number" min="1"></vscode-textfield></div>
  <div class="field"><vscode-label for="duration">Duration (s)</vscode-label><vscode-textfield id="duration" type="number" min="${LIMITS.durationS[0]}" max="${LIMITS.durationS[1]}"></vscode-textfield></div>
  <div class="field"><vscode-label for="warmup">Warm-up (s)</vscode-label><vscode-textfield id="warmup" type="number" min="${LIMITS.warmupS[0]}" max="${LIMITS.warmupS[1]}"></vscode-textfield></div>
  <div class="field wide"><vscode-label for="path">Path</vscode-label><vscode-textfield id="path"></vscode-textfield></div>
  <div class="field"><vscode-label for="host">Host header</vscode-label><vscode-textfield id="host" placeholder="localhost"></vscode-textfield></div>
  <div class="field"><vscode-label for="method">Method</vscode-label>
    <vscode-single-select id="method"></vscode-single-select></div>
  <div class="field wide" id="body-field"><vscode-label for="body">Request body</vscode-label>
    <vscode-textarea id="body" rows="3" placeholder="none (sent with every request; JSON gets Content-Type application/json)"></vscode-textarea>
    <div id="body-note" class="muted hidden"></div></div>
  <div class="field hidden" id="binary-field"><vscode-label for="binary">Binary (A)</vscode-label><vscode-single-select id="binary"></vscode-single-select></div>
  <div class="field hidden" id="binary-b-field"><vscode-label for="binary-b">Compare with (B)</vscode-label><vscode-single-select id="binary-b"></vscode-single-select></div>
  <div class="field"><vscode-checkbox id="direct" label="Direct baseline (backend without the proxy)"></vscode-checkbox></div>
  <div id="form-problem" class="problem hidden"></div>
</section>
<vscode-divider></vscode-divider>
<section>
  <h3>Live: latency per second <span id="live-label" class="muted"></span></h3>
  <div id="live-wrap" class="chart" data-points="0"><canvas id="live"></canvas></div>
</section>
<section>
  <h3>Whole-run distribution <span id="dist-label" class="muted"></span></h3>
  <div id="dist-wrap" class="chart" data-curves="0"><canvas id="dist"></canvas></div>
  <table id="numbers" class="numbers"></table>
</section>
<section id="diagnosis-section" class="hidden">
  <h3>Diagnosis <span id="diagnosis-label" class="muted"></span></h3>
  <div id="diagnosis" data-count="0"></div>
</section>
<section id="compare" data-state="none" class="hidden">
  <h3>Compare</h3>
  <table id="compare-table" class="numbers"></table>
  <div class="actions"><vscode-button id="copy-compare" secondary>Copy as markdown</vscode-button></div>
</section>
<section>
  <h3>Runs of this config</h3>
  <div id="runs" data-count="0"></div>
</section>
`;

// ---- form -------------------------------------------------------------------------------

type ValueEl = HTMLElement & { value: string };
type CheckEl = HTMLElement & { checked: boolean };

const scenarioSel = $<ValueEl>('scenario');
for (const s of SCENARIOS) {
  const o = el('vscode-option' as 'option', s);
  o.setAttribute('value', s);
  scenarioSel.appendChild(o);
}

const methodSel = $<ValueEl>('method');
for (const m of HTTP_METHODS) {
  const o = el('vscode-option' as 'option', m);
  o.setAttribute('value', m);
  methodSel.appendChild(o);
}

let binaries: PanelBinary[] = [];

/** Fills the binary pickers (A: default or a listed binary; B: none or another listed one). */
function setBinaries(list: PanelBinary[]): void {
  binaries = list;
  for (const [id, none] of [
    ['binary', 'default (setting, else PATH)'],
    ['binary-b', 'none: a single run'],
  ] as const) {
    const sel = $<ValueEl>(id);
    sel.replaceChildren();
    const o = el('vscode-option' as 'option', none);
    o.setAttribute('value', '');
    sel.appendChild(o);
    for (const b of list) {
      const x = el('vscode-option' as 'option', `${state.config?.kind ?? ''} ${b.version} (${b.path})`);
      x.setAttribute('value', b.path);
      sel.appendChild(x);
    }
  }
  $('binary-field').classList.toggle('hidden', list.length === 0);
  $('binary-b-field').classList.toggle('hidden', list.length < 2);
}

/** The body field is off for methods without a body and for scenarios that send their own requests. */
function showRequestFields(scenario: string, method: string): void {
  const own = (SCENARIOS as readonly string[]).includes(scenario) && sendsOwnRequests(scenario as ScenarioName);
  const bodyless = BODYLESS_METHODS.includes(method);
  $('body-field').classList.toggle('dim', own || bodyless);
  const note = $('body-note');
  note.textContent = own
    ? `${scenario} sends its own requests: method and body are not used`
    : bodyless
      ? `${method} requests carry no body`
      : '';
  note.classList.toggle('hidden', note.textContent === '');
}

function writeForm(o: PanelRunOptions): void {
  scenarioSel.value = o.scenario;
  $<ValueEl>('model').value = o.model;
  $<ValueEl>('connections').value = String(o.connections);
  $<ValueEl>('rate').value = String(o.rate || 1000);
  $<ValueEl>('duration').value = String(o.durationS);
  $<ValueEl>('warmup').value = String(o.warmupS);
  $<ValueEl>('path').value = o.path;
  $<ValueEl>('host').value = o.host;
  $<ValueEl>('method').value = o.method;
  $<ValueEl>('body').value = o.body ?? '';
  $<CheckEl>('direct').checked = o.direct;
  const listed = (p: string | undefined) => (p && binaries.some((b) => b.path === p) ? p : '');
  $<ValueEl>('binary').value = listed(o.binary);
  $<ValueEl>('binary-b').value = listed(o.binaryB);
  showModelFields(o.model);
  showRequestFields(o.scenario, o.method);
}

function showModelFields(model: string): void {
  $('connections-field').classList.toggle('dim', model === 'open');
  $('rate-field').classList.toggle('hidden', model !== 'open');
}

function readForm(): { options?: PanelRunOptions; problem?: string } {
  const num = (id: string) => Number($<ValueEl>(id).value.trim());
  const model = $<ValueEl>('model').value === 'open' ? 'open' : 'closed';
  const options = {
    scenario: scenarioSel.value,
    model,
    connections: num('connections'),
    rate: model === 'open' ? num('rate') : 0,
    durationS: num('duration'),
    warmupS: num('warmup'),
    path: $<ValueEl>('path').value.trim(),
    host: $<ValueEl>('host').value.trim(),
    method: $<ValueEl>('method').value,
    body: $<ValueEl>('body').value,
    direct: $<CheckEl>('direct').checked,
  } as Record<string, unknown>;
  const a = $<ValueEl>('binary').value;
  const b = $<ValueEl>('binary-b').value;
  if (a) options.binary = a;
  if (b) options.binaryB = b;
  const problem = runOptionsProblem(options);
  return problem ? { problem: problem.replace(/^options\./, '') } : { options: options as unknown as PanelRunOptions };
}

function onFormChange(): void {
  const { options, problem } = readForm();
  const p = $('form-problem');
  p.textContent = problem ?? '';
  p.classList.toggle('hidden', !problem);
  showModelFields($<ValueEl>('model').value);
  showRequestFields(scenarioSel.value, $<ValueEl>('method').value);
  if (options) {
    state.options = options;
    save();
  }
  updateButtons();
}

for (const id of [
  'scenario',
  'model',
  'connections',
  'rate',
  'duration',
  'warmup',
  'path',
  'host',
  'method',
  'body',
  'direct',
  'binary',
  'binary-b',
]) {
  $(id).addEventListener('change', onFormChange);
  $(id).addEventListener('input', onFormChange);
}

$('run').addEventListener('click', () => {
  if (!enabled || running) return;
  const { options } = readForm();
  if (!options) {
    onFormChange();
    return;
  }
  hideError();
  post({ type: 'run', options });
});
$('stop').addEventListener('click', () => post({ type: 'stop' }));

function updateButtons(): void {
  const formOk = !readForm().problem;
  $('run').toggleAttribute('disabled', !enabled || running || !formOk || !state.config);
  $('run').textContent = $<ValueEl>('binary-b').value ? 'Run A/B' : 'Run';
  $('stop').toggleAttribute('disabled', !running);
}

// ---- status, errors -----------------------------------------------------------------------

function setStatus(kind: 'idle' | 'running' | 'done' | 'error' | 'stopped', text: string): void {
  const s = $('status');
  s.dataset.state = kind;
  s.textContent = text;
}

let errorLine: number | null = null;
function showError(message: string, line: number | null): void {
  $('error-text').textContent = message;
  errorLine = line;
  const a = $('error-line');
  a.textContent = line === null ? '' : `Go to line ${line + 1}`;
  a.classList.toggle('hidden', line === null);
  $('error').classList.remove('hidden');
}
function hideError(): void {
  $('error').classList.add('hidden');
}
$('error-line').addEventListener('click', (e) => {
  e.preventDefault();
  if (errorLine !== null) post({ type: 'revealLine', line: errorLine });
});

// ---- charts -------------------------------------------------------------------------------

const charts = new Charts($<HTMLCanvasElement>('live'), $<HTMLCanvasElement>('dist'));

function renderLive(): void {
  const n = charts.setLive(state.samples);
  $('live-wrap').dataset.points = String(n);
  $('live-label').textContent = state.liveLabel;
}

function runById(id: string | null): RunRecord | undefined {
  return id ? runs.find((r) => r.id === id) : undefined;
}

/** The run the distribution and numbers show: the selected one, else the newest. */
function currentRun(): RunRecord | undefined {
  return runById(state.selected) ?? runs[runs.length - 1];
}

function renderResult(): void {
  const a = runById(state.compare.a);
  const b = runById(state.compare.b);
  const cur = currentRun();
  const curves: { label: string; distribution: [number, number][]; dashed: boolean }[] = [];
  if (a && b) {
    curves.push({ label: `A: ${a.label}`, distribution: a.result.distribution, dashed: true });
    curves.push({ label: `B: ${b.label}`, distribution: b.result.distribution, dashed: false });
    if (a.result.direct) curves.push({ label: 'direct (no proxy)', distribution: [], dashed: true });
  } else if (cur) {
    curves.push({ label: cur.label, distribution: cur.result.distribution, dashed: false });
  }
  const n = charts.setDistribution(curves.filter((c) => c.distribution.length));
  $('dist-wrap').dataset.curves = String(n);
  $('dist-label').textContent = a && b ? 'A vs B' : (cur?.label ?? '');

  const table = $('numbers');
  table.replaceChildren();
  if (cur) {
    const cap = el('caption', cur.label + (cur.note ? ` (${cur.note})` : ''));
    table.appendChild(cap);
    for (const [k, v] of resultRows(cur.result)) {
      const tr = el('tr');
      tr.append(el('th', k), el('td', v));
      table.appendChild(tr);
    }
    const bottleneck = bottleneckWarning(cur.result);
    if (bottleneck) {
      const tr = el('tr', undefined, 'warning bottleneck');
      const td = el('td', bottleneck);
      td.colSpan = 2;
      tr.appendChild(td);
      table.insertBefore(tr, cap.nextSibling);
    }
    // a lowered setting is a row of the table already (resultRows); its warning would say it twice
    const lowered = (cur.result.sandbox?.adjustments ?? []).map((x) => `: ${x.setting} lowered from ${x.from} to ${x.to}:`);
    for (const w of cur.result.warnings) {
      if (bottleneck && /was the bottleneck/.test(w)) continue;
      if (lowered.some((l) => w.includes(l))) continue;
      const tr = el('tr', undefined, 'warning');
      const td = el('td', w);
      td.colSpan = 2;
      tr.appendChild(td);
      table.appendChild(tr);
    }
  }
  renderDiagnosis(cur);
  renderCompare(a, b);
}

/** The run's findings next to the chart: the measured fact, the line (a link), the rule and the fix. */
function renderDiagnosis(cur: RunRecord | undefined): void {
  const box = $('diagnosis');
  box.replaceChildren();
  const d = cur?.result.diagnosis;
  $('diagnosis-section').classList.toggle('hidden', !d);
  box.dataset.count = String(d?.findings.length ?? 0);
  if (!d) return;
  $('diagnosis-label').textContent = d.findings.length ? `${d.findings.length} finding(s)` : 'nothing to report';
  const configPath = state.config ? decodeURIComponent(state.config.uri.replace(/^file:\/\//, '')) : '';
  for (const [index, f] of d.findings.entries()) {
    const item = el('div', undefined, `finding ${f.severity}`);
    item.dataset.kind = f.kind;
    item.appendChild(el('div', f.measured, 'measured'));
    if (f.at) {
      const at = f.at;
      const where = `line ${at.line} (${at.setting})`;
      if (configPath && configPath === at.file) {
        const a = el('a', where, 'at');
        a.setAttribute('href', '#');
        a.addEventListener('click', (e) => {
          e.preventDefault();
          post({ type: 'revealLine', line: at.line - 1 });
        });
        item.appendChild(a);
      } else item.appendChild(el('div', `${at.file}:${at.line} (${at.setting})`, 'at'));
    }
    item.appendChild(el('div', f.advice, 'advice'));
    if (f.rule) item.appendChild(el('div', `rule ${f.rule}`, 'muted rule'));
    if (f.fix) {
      const lines = f.fix.edits.flatMap((e) =>
        e.replaceLine !== undefined ? [`${e.line}: ${e.replaceLine}`] : (e.insertAfter ?? []).map((x) => `${e.line} +${x}`),
      );
      item.appendChild(el('div', `Fix: ${f.fix.title}`, 'fix-title'));
      item.appendChild(el('pre', lines.join('\n'), 'fix'));
      if (cur && configPath && f.fix.edits.every((e) => e.file === configPath)) {
        const runId = cur.id;
        const btn = el('vscode-button' as 'button', 'Apply fix', 'apply-fix');
        btn.setAttribute('secondary', '');
        btn.addEventListener('click', () => post({ type: 'applyFix', runId, finding: index }));
        item.appendChild(btn);
      }
    }
    box.appendChild(item);
  }
}

function changeCell(c: Change, fmt: (n: number) => string): HTMLTableCellElement {
  const td = el('td', `${fmt(c.delta).replace(/^(?!-)/, c.delta > 0 ? '+' : '')} (${formatPercent(c.percent)})`);
  td.className = c.delta === 0 ? '' : c.better ? 'better' : 'worse';
  return td;
}

function renderCompare(a: RunRecord | undefined, b: RunRecord | undefined): void {
  const sec = $('compare');
  const table = $('compare-table');
  table.replaceChildren();
  if (!a || !b) {
    sec.classList.add('hidden');
    sec.dataset.state = 'none';
    return;
  }
  const c = compareResults(a.result, b.result);
  const head = el('tr');
  head.append(el('th', ''), el('th', `A: ${a.label}`), el('th', `B: ${b.label}`), el('th', 'B vs A'));
  table.appendChild(head);
  const rows: [string, Change, (n: number) => string][] = [
    ['P99', c.p99, formatMs],
    ['Throughput', c.rps, formatRps],
    ['P50', c.p50, formatMs],
    ['P99.9', c.p999, formatMs],
    ['Errors', c.errors, (n) => String(n)],
    ['Backend conns / request', c.backendConnectionsPerRequest, (n) => n.toFixed(3)],
  ];
  for (const [name, ch, fmt] of rows) {
    const tr = el('tr');
    tr.dataset.metric = name;
    tr.append(el('th', name), el('td', fmt(ch.a)), el('td', fmt(ch.b)), changeCell(ch, fmt));
    table.appendChild(tr);
  }
  sec.classList.remove('hidden');
  sec.dataset.state = 'ready';
  sec.dataset.p99Percent = c.p99.percent === null ? '' : c.p99.percent.toFixed(1);
  sec.dataset.rpsPercent = c.rps.percent === null ? '' : c.rps.percent.toFixed(1);
}

$('copy-compare').addEventListener('click', () => {
  if (state.compare.a && state.compare.b) post({ type: 'copyMarkdown', runIds: [state.compare.a, state.compare.b] });
});

// ---- runs list ----------------------------------------------------------------------------

function button(text: string, onClick: () => void, title?: string): HTMLElement {
  const b = document.createElement('vscode-button');
  b.setAttribute('secondary', '');
  b.textContent = text;
  if (title) b.title = title;
  b.addEventListener('click', onClick);
  return b;
}

function renderRuns(): void {
  const list = $('runs');
  list.replaceChildren();
  list.dataset.count = String(runs.length);
  if (!runs.length) {
    list.appendChild(el('p', 'No runs yet.', 'muted'));
    return;
  }
  for (const r of [...runs].reverse()) {
    const row = el('div', undefined, 'run');
    row.dataset.runId = r.id;
    const tags: string[] = [];
    if (state.compare.a === r.id) tags.push('A');
    if (state.compare.b === r.id) tags.push('B');
    const name = el('a', r.label, 'run-label');
    name.href = '#';
    name.addEventListener('click', (e) => {
      e.preventDefault();
      state.selected = r.id;
      save();
      renderResult();
    });
    const summary = el(
      'span',
      `${formatMs(r.result.latencyMs.p99)} P99 · ${formatRps(r.result.rps)}${r.note ? ` · ${r.note}` : ''}`,
      'muted',
    );
    const badge = el('span', tags.join(' '), 'badge');
    const setA = button('A', () => setCompare(r.id, state.compare.b === r.id ? null : state.compare.b), 'Compare: use as A (before)');
    const setB = button('B', () => setCompare(state.compare.a === r.id ? null : state.compare.a, r.id), 'Compare: use as B (after)');
    const json = button('JSON', () => post({ type: 'export', runId: r.id, format: 'json' }), 'Export as JSON');
    const csv = button('CSV', () => post({ type: 'export', runId: r.id, format: 'csv' }), 'Export as CSV');
    const md = button('MD', () => post({ type: 'copyMarkdown', runIds: [r.id] }), 'Copy as a markdown table');
    const del = button('Delete', () => post({ type: 'deleteRun', runId: r.id }));
    const info = el('div', undefined, 'run-info');
    info.append(name, summary);
    const buttons = el('div', undefined, 'run-buttons');
    buttons.append(setA, setB, json, csv, md, del);
    row.append(badge, info, buttons);
    list.appendChild(row);
  }
}

function setCompare(a: string | null, b: string | null): void {
  state.compare = { a, b };
  save();
  post({ type: 'compare', a, b });
  renderRuns();
  renderResult();
}

// ---- messages -----------------------------------------------------------------------------

function post(msg: PanelToHost): void {
  vscode.postMessage(msg);
}

function save(): void {
  vscode.setState(state);
}

function handle(msg: HostToPanel): void {
  switch (msg.type) {
    case 'init': {
      // A second init for the config shown (the host found another binary list, the trust
      // changed) keeps the form as the user left it; a new config or a fresh panel takes the
      // host's defaults; the first init after a reload takes what the webview state kept.
      const sameConfig = initSeen && state.config?.uri === msg.config?.uri;
      initSeen = true;
      state.config = msg.config;
      enabled = msg.enabled;
      running = msg.running;
      runs = msg.runs;
      state.compare = msg.compare;
      if (!runById(state.selected)) state.selected = null;
      $('config-name').textContent = msg.config ? msg.config.name : 'No config: open an nginx or HAProxy config';
      setBinaries(msg.binaries ?? []);
      const dis = $('disabled');
      dis.textContent = msg.disabledReason;
      dis.classList.toggle('hidden', msg.enabled);
      // The form keeps what the user typed across reloads; a fresh panel takes the host's defaults.
      const kept = restoredOptions ?? (sameConfig ? state.options : null);
      restoredOptions = null;
      writeForm(kept ?? msg.options);
      state.options = kept ?? msg.options;
      if (!running && state.liveRunId && !runById(state.liveRunId) && state.samples.length) {
        setStatus('stopped', 'Stopped');
      } else if (running) setStatus('running', 'Running…');
      break;
    }
    case 'runStarted':
      running = true;
      state.liveRunId = msg.runId;
      state.liveLabel = msg.label;
      state.samples = [];
      state.options = msg.options;
      writeForm(msg.options);
      hideError();
      setStatus('running', `Running ${msg.label}…`);
      renderLive();
      break;
    case 'progress':
      if (msg.runId !== state.liveRunId) return;
      state.samples.push(msg.sample);
      if (state.samples.length > 700) state.samples.shift();
      setStatus(
        'running',
        `${msg.sample.phase === 'warmup' ? 'Warming up' : 'Measuring'} ${msg.sample.t} s · P99 ${formatMs(msg.sample.p99)}`,
      );
      renderLive();
      break;
    case 'runDone':
      running = false;
      runs = runs.filter((r) => r.id !== msg.run.id).concat(msg.run);
      state.selected = msg.run.id;
      if (msg.run.id === state.liveRunId && !state.samples.length) {
        state.samples = msg.run.result.perSecond.slice();
      }
      setStatus('done', `Done: ${formatMs(msg.run.result.latencyMs.p99)} P99 · ${formatRps(msg.run.result.rps)}`);
      renderLive();
      break;
    case 'runError':
      running = false;
      if (msg.stopped) {
        setStatus('stopped', 'Stopped');
      } else {
        setStatus('error', 'Failed');
        showError(msg.message, msg.location ? msg.location.line : null);
      }
      break;
    case 'runs':
      runs = msg.runs;
      if (!runById(state.selected)) state.selected = null;
      if (!runById(state.compare.a)) state.compare.a = null;
      if (!runById(state.compare.b)) state.compare.b = null;
      break;
    case 'compare':
      state.compare = { a: msg.a, b: msg.b };
      if (msg.b) state.selected = msg.b;
      break;
  }
  save();
  updateButtons();
  renderRuns();
  renderResult();
}

window.addEventListener('message', (event: MessageEvent) => {
  const v = validateHostMessage(event.data);
  if (!v.ok) {
    console.warn(`proxy-tuner panel: ignored a message: ${v.error}`);
    return;
  }
  handle(v.message);
});

// Theme changes: VS Code swaps the body class and the --vscode-* variables; redraw with the new colors.
new MutationObserver(() => {
  charts.applyTheme();
  document.body.dataset.theme = themeKind();
}).observe(document.body, { attributes: true, attributeFilter: ['class', 'style'] });
new MutationObserver(() => charts.applyTheme()).observe(document.documentElement, {
  attributes: true,
  attributeFilter: ['style', 'class'],
});

function themeKind(): string {
  const c = document.body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'hc-light';
  if (c.contains('vscode-high-contrast')) return 'hc';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

// Restore immediately from the saved state (the host's init follows).
let restoredOptions: PanelRunOptions | null = vscode.getState() ? state.options : null;
document.body.dataset.theme = themeKind();
writeForm(state.options);
$('config-name').textContent = state.config?.name ?? 'Loading…';
renderLive();
renderRuns();
updateButtons();
post({ type: 'ready' });
