// rollsim live: the page's whole state is {config, scenario, the --sets its controls made,
// the tab, the dice box's expression}. The URL holds it; every request sends it; the
// server keeps nothing. A control's move aborts the requests the last move started.
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (k === 'style') e.style.cssText = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};
const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs, ...kids) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
};
// `x` to `d` decimals as the CLI's reports print it: an exact tie goes to the even digit
// (Rust's rounding), where toFixed would round it up (0.625 -> 0.62, not 0.63).
function fixed(x, d) {
  const full = Math.abs(x).toFixed(20);
  const dot = full.indexOf('.');
  if (/^50*$/.test(full.slice(dot + 1 + d))) {
    const down = full.slice(0, dot + 1 + d);
    if (Number(down.slice(-1)) % 2 === 0) return (x < 0 ? '-' : '') + down;
  }
  return x.toFixed(d);
}
// A probability as the CLI's tables print it: exactly 1 is 100.00% and exactly 0 is
// 0.00%, but a value below 1 that would round up reads >99.99% and one above 0 that
// would round down reads <0.01% (a cyclic share of 1.35e-5 once read 0.00%).
const pct = (p) => {
  const shown = fixed(100 * p, 2);
  if (p < 1 && shown === '100.00') return '>99.99%';
  if (p > 0 && shown === '0.00') return '<0.01%';
  return (shown === '-0.00' ? '0.00' : shown) + '%';
};
// A number that rounds to zero is written without a sign, as the CLI's `text::signed`
// writes it: never `-0.0000` (a difference of -2e-16 is float noise).
const unsignedZero = (s) => (/^-[0.]+$/.test(s) ? s.slice(1) : s);
const num = (x) => unsignedZero(Math.abs(x) >= 100 ? fixed(x, 1) : fixed(x, 4));
// A change, signed as the CLI's sensitivity table signs it: `+0.1168`, `-0.0340`, `0.0000`.
const signed = (x, d) => { const s = unsignedZero(fixed(x, d)); return /^[0.]+$/.test(s) || s.startsWith('-') ? s : '+' + s; };
// A mean: 4 decimals, or 3 significant digits where 4 decimals would print 0.0000 for
// a mean that is not 0 (slammer turns out of play at 9 dice: 0.0000435).
const mean = (x) => (x !== 0 && Math.abs(x) < 5e-5 && Math.abs(x) > 1e-12 ? x.toPrecision(3) : num(x));

const TABS = ['dist', 'matrix', 'sensitivity', 'roster'];
// `count`: the stat the roster tab prices on (`rollsim roster --count`), kept in the URL.
const state = { file: null, scenario: null, sets: [], tab: 'dist', expr: '', count: null };
const modes = {}; // metric -> exactly | at_least | at_most
const allRows = {}; // member/metric -> true: its tails shown too
// Values under this share at either end of a numeric distribution are its tails: the
// table hides them (a button shows them) and the chart folds them into its end bars, as
// the PNG charts do.
const TAIL = 5e-4;

// [lo, hi]: the rows of a numeric metric between its tails (every row of a category).
function tailWindow(rows, mcRows, numeric) {
  const n = rows.length;
  if (!numeric || n <= 2) return [0, n - 1];
  const big = (i) => Math.max(rows[i].p || 0, mcRows ? (mcRows[i].probability || 0) : 0) >= TAIL;
  let lo = 0, hi = n - 1;
  while (lo < hi && !big(lo)) lo++;
  while (hi > lo && !big(hi)) hi--;
  return [lo, hi];
}

// The chart's bars for rows lo..hi: in `exactly` mode the tails summed into the end bars.
function folded(labels, values, lo, hi, fold) {
  if (!values) return null;
  const v = values.slice(lo, hi + 1);
  if (fold) {
    if (lo > 0) v[0] = values.slice(0, lo + 1).reduce((a, b) => a + b, 0);
    if (hi < values.length - 1) v[v.length - 1] = values.slice(hi).reduce((a, b) => a + b, 0);
  }
  return v;
}
// Past this many bars a numeric chart draws ranges of one width, as the report's charts
// do past 150 (this chart is narrower): a bar a value of 2,670 was under a pixel wide.
const RANGE_BARS = 100;


// Bars `values` (and `mc`) of the numbers `nums`, the tails already folded into the end
// ones (`≤`/`≥` labels), in about 60 ranges of one width: each the sum of its values in
// `exactly` mode, P(≥ a) read at a range's start in `at least`, P(≤ b) at its end in
// `at most`; a range no value falls in is an empty bar, so that the axis is spaced by
// value. Null where the numbers are not all numbers or too few to need it.
function inRanges(nums, labels, values, mc, mode) {
  const n = nums.length;
  if (n <= RANGE_BARS || nums.some((x) => !Number.isFinite(x))) return null;
  const first = nums[0], last = nums[n - 1];
  const w = niceStep(Math.max(1, Math.floor((last - first) / 60)));
  const start = Math.floor(first / w) * w;
  const count = Math.floor((last - start) / w) + 1;
  // A range is labelled by its start (its tooltip gives both ends), as narrow as a value.
  const out = { labels: [], tips: [], values: [], mc: mc ? [] : null, width: w };
  const sum = (v, a, b) => v.slice(a, b).reduce((x, y) => x + y, 0);
  let i = 0;
  for (let k = 0; k < count; k++) {
    const a = start + k * w, b = a + w - 1, from = i;
    while (i < n && nums[i] <= b) i++;
    if (mode === 'at_least') {
      if (from >= n) continue;
      out.labels.push(`≥${Math.max(a, first)}`);
      out.tips.push(`≥${Math.max(a, first)}`);
      out.values.push(values[from]);
      if (mc) out.mc.push(mc[from]);
    } else if (mode === 'at_most') {
      if (i === 0) continue;
      out.labels.push(`≤${Math.min(b, last)}`);
      out.tips.push(`≤${Math.min(b, last)}`);
      out.values.push(values[i - 1]);
      if (mc) out.mc.push(mc[i - 1]);
    } else {
      const end = k === 0 && labels[0].startsWith('≤') ? `≤${b}`
        : k === count - 1 && labels[n - 1].startsWith('≥') ? `≥${a}` : null;
      out.labels.push(end || String(a));
      out.tips.push(end || `${a} to ${b}`);
      out.values.push(sum(values, from, i));
      if (mc) out.mc.push(sum(mc, from, i));
    }
  }
  return out;
}

let view = null; // the last /api/view answer
let gen = 0; // bumps on every change; answers to an older one are dropped
const inflight = { view: null, sim: null, balance: null, roll: null };
let controlsShape = '';
let moved = null; // performance.now() of the control change being answered
let dragging = null; // the slider under the pointer, if any
document.addEventListener('pointerdown', (e) => { if (e.target.matches && e.target.matches('input[type=range]')) dragging = e.target; });
for (const ev of ['pointerup', 'pointercancel']) document.addEventListener(ev, () => { dragging = null; });
window.rollsimTimings = [];
// Where each of those went: the answer read, the page built, laid out (for the bench).
window.rollsimStages = [];

// ---------- the URL ----------
function readUrl() {
  const q = new URLSearchParams(location.search);
  // An empty value is no value: `?scenario=` opens the config's first scenario.
  state.file = q.get('config') || null;
  state.scenario = q.get('scenario') || null;
  state.sets = q.getAll('set');
  state.tab = TABS.includes(q.get('tab')) ? q.get('tab') : 'dist';
  state.expr = q.get('expr') || '';
  state.count = q.get('count') || null;
}
function writeUrl() {
  const q = new URLSearchParams();
  if (state.file) q.set('config', state.file);
  if (state.scenario) q.set('scenario', state.scenario);
  for (const s of state.sets) q.append('set', s);
  if (state.tab !== 'dist') q.set('tab', state.tab);
  if (state.expr) q.set('expr', state.expr);
  if (state.tab === 'roster' && state.count) q.set('count', state.count);
  history.replaceState(null, '', '?' + q.toString());
}

// ---------- requests ----------
function abort(which) {
  if (inflight[which]) inflight[which].abort();
  inflight[which] = null;
}
async function post(which, path, body) {
  abort(which);
  const ctl = new AbortController();
  inflight[which] = ctl;
  const r = await fetch(path, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body), signal: ctl.signal,
  });
  return { r, ctl };
}
// A streamed computation: progress lines, then {result} or {error}.
async function streamed(which, path, body, onProgress) {
  const { r, ctl } = await post(which, path, body);
  if (!r.ok) throw new Error((await r.json()).error);
  const reader = r.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if ('progress' in line) onProgress(line.progress);
      else if ('error' in line) throw new Error(line.error);
      else if ('result' in line) { if (inflight[which] === ctl) inflight[which] = null; return line.result; }
    }
  }
  throw new Error('the server closed the answer early');
}
const isAbort = (e) => e && e.name === 'AbortError';

function problem(text) {
  const p = $('problem');
  p.hidden = !text;
  p.textContent = text || '';
}
// Fractions past this many characters are cut in a cell (the lowest sums of 1000d6 are
// 1 over a number of 779 digits); the cell's tooltip and the data files hold them whole.
const SHOWN_FRACTION = 40;

function shortFraction(f) {
  if (!f || f.length <= SHOWN_FRACTION) return f;
  const [n, d] = f.split('/');
  const cut = (x) => x.length > 12 ? `${x.slice(0, 6)}…` : x;
  const sizes = [n, d].filter((x) => x.length > 12).map((x) => x.length).join('/');
  return `${cut(n)}/${cut(d)} (${sizes} digits)`;
}

function progress(label, fraction) {
  const p = $('progress');
  if (label === null) { p.hidden = true; return; }
  p.hidden = false;
  p.querySelector('.bar div').style.width = (100 * (fraction || 0)).toFixed(1) + '%';
  p.querySelector('span').textContent = label;
}
function busy(on) {
  document.body.dataset.state = on ? 'busy' : 'ready';
  document.body.dataset.gen = String(gen);
}

// ---------- configs and scenarios ----------
async function loadConfigs() {
  const r = await fetch('/api/configs');
  const { configs, left_out: leftOut } = await r.json();
  const sel = $('config');
  sel.replaceChildren(...configs.map((c) => el('option', {
    value: c.file, disabled: !!c.error,
    text: c.error ? `${c.file} (does not load)` : `${c.file}: ${c.title}`,
  })));
  if (leftOut) sel.append(el('option', { disabled: true, value: '', text: `… ${leftOut.toLocaleString()} more configs in the folder, not listed` }));
  if (!state.file || !configs.some((c) => c.file === state.file)) {
    // The URL's config is gone: its scenario and changes went with it.
    const first = configs.find((c) => !c.error);
    state.file = first ? first.file : null;
    state.scenario = null;
    state.sets = [];
  }
  sel.value = state.file || '';
}

let scenariosShape = '';
function fillScenarios() {
  const sel = $('scenario');
  // The list changes with the config only: rebuilt then, not on every move.
  const shape = view.file + JSON.stringify(view.groups) + view.scenarios_total + view.target.name;
  if (shape === scenariosShape) { sel.value = view.target.name; return; }
  scenariosShape = shape;
  const opts = [];
  const groups = el('optgroup', { label: 'groups (every member)' });
  for (const g of view.groups) groups.append(el('option', { value: g, text: g }));
  if (view.groups.length) opts.push(groups);
  const more = (n, what) => el('option', { disabled: true, value: '', text: `… ${n.toLocaleString()} more ${what} (rollsim list ${view.file} names them all)` });
  if (view.groups_total > view.groups.length) groups.append(more(view.groups_total - view.groups.length, 'groups'));
  const one = el('optgroup', { label: 'scenarios' });
  for (const s of view.scenarios) one.append(el('option', { value: s.name, text: s.name }));
  if (view.scenarios_total > view.scenarios.length) one.append(more(view.scenarios_total - view.scenarios.length, 'scenarios'));
  opts.push(one);
  sel.replaceChildren(...opts);
  sel.value = view.target.name;
}

// ---------- controls ----------
function setOf(key) {
  const s = state.sets.find((x) => x.startsWith(key + '='));
  return s === undefined ? undefined : s.slice(key.length + 1);
}
function change(c, value) {
  const set = c.kind === 'number' && c.quoted ? `${c.key}=${value}+` : `${c.key}=${value}`;
  state.sets = state.sets.filter((s) => !s.startsWith(c.key + '='));
  state.sets.push(set);
  moved = performance.now();
  refresh();
}
const shown = (c, v) => (c.target ? `${v}+` : String(v));

function renderControls() {
  // A slider's range may follow its value (a window on a wide stat): not part of the
  // shape, so that the slider being dragged is never replaced under the pointer.
  const shape = JSON.stringify(view.controls.map((c) => [c.section, c.key, c.kind, c.choices]));
  const box = $('controls');
  if (shape !== controlsShape) {
    controlsShape = shape;
    const kids = [];
    let section = null;
    for (const c of view.controls) {
      if (c.section !== section) { section = c.section; kids.push(el('h3', { text: section })); }
      const id = 'k-' + c.key.replace(/[^A-Za-z0-9_-]/g, '_');
      let input;
      let out = el('output', { for: id });
      if (c.kind === 'number') {
        input = el('input', {
          type: 'range', id, min: c.lo, max: c.hi, step: 1, value: c.value,
          'data-key': c.key, 'aria-label': `${c.section} ${c.label}`,
          oninput: (e) => { out.textContent = shown(c, e.target.value); change(c, e.target.value); },
        });
      } else if (c.kind === 'choice') {
        input = el('select', { id, 'data-key': c.key, 'aria-label': `${c.section} ${c.label}`,
          onchange: (e) => change(c, e.target.value) },
          ...c.choices.map((x) => el('option', { value: x, text: x })));
        out = null;
      } else {
        input = el('input', { type: 'checkbox', id, 'data-key': c.key,
          onchange: (e) => change(c, e.target.checked ? 'true' : 'false') });
        out = null;
      }
      // A long name wraps after an underscore (`defender_` / `extra_dice`), never cut.
      const name = el('label', { for: id, title: c.key }, ...c.label.split(/(?<=_)/).flatMap((w, i) => (i ? [el('wbr'), w] : [w])));
      const row = el('div', { class: 'control', 'data-key': c.key }, name, input);
      if (out) row.append(out);
      kids.push(row);
    }
    if (!view.controls.length) kids.push(el('p', { class: 'note', text: 'This scenario has no knobs: its numbers are written into it.' }));
    box.replaceChildren(...kids);
  }
  // Values, without replacing the element being dragged.
  for (const c of view.controls) {
    const row = box.querySelector(`.control[data-key="${CSS.escape(c.key)}"]`);
    if (!row) continue;
    const input = row.querySelector('[data-key]');
    row.classList.toggle('changed', setOf(c.key) !== undefined);
    if (c.kind === 'number') {
      // Not under the pointer: the thumb would jump as the range moves.
      if (dragging === input) continue;
      input.min = c.lo;
      input.max = c.hi;
      input.value = c.value;
      row.querySelector('output').textContent = shown(c, c.value);
    }
    else if (c.kind === 'choice') input.value = c.value;
    else input.checked = c.value;
  }
}

// ---------- the distribution ----------
function cumulative(rows, mode) {
  const p = rows.map((r) => r.p);
  if (mode === 'at_least') {
    const out = new Array(p.length);
    let s = 0;
    for (let i = p.length - 1; i >= 0; i--) { s += p[i]; out[i] = Math.min(1, s); }
    return out;
  }
  if (mode === 'at_most') { let s = 0; return p.map((x) => Math.min(1, (s += x))); }
  return p;
}

// Round ticks from 0 past `top`: a step of 1, 2 or 5 times a power of ten, about five
// of them, as the PNG charts' axes have (0%, 10%, 20%, ... or 0.02%, 0.04%, ...).
// The least of 1, 2 and 5 times a power of ten that is at least `raw` (a tick's step,
// a chart's range of values).
function niceStep(raw) {
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw * (1 - 1e-9));
}

function ticks(top) {
  const step = niceStep(top / 5);
  const n = Math.max(1, Math.ceil(top / step - 1e-9));
  // The decimals that tell the ticks apart (0.2%, 0.4%, not 0%, 0%).
  const d = Math.max(0, -Math.floor(Math.log10(100 * step) + 1e-9));
  return Array.from({ length: n + 1 }, (_, i) => ({ v: i * step, text: (100 * i * step).toFixed(d) + '%' }));
}

// A bar's label in lines of at most `max` characters, broken after a space or an
// underscore; a word longer than its column is cut (the whole label is the tooltip).
function wrap(label, max) {
  const lines = [];
  for (const w of label.match(/[^ _]+[ _]*|[ _]+/g) || [label]) {
    const last = lines.length - 1;
    if (last >= 0 && (lines[last] + w).trimEnd().length <= max) lines[last] += w;
    else lines.push(w);
  }
  return lines.map((l) => l.trimEnd()).map((l) => (l.length > max ? l.slice(0, Math.max(1, max - 1)) + '…' : l));
}

// `tips`: each bar's tooltip where it says more than its label (a range's both ends).
function chart(labels, values, mc, tips) {
  const W = 420, L = 40, T = 8, PLOT = 132;
  const n = labels.length;
  const axis = ticks(Math.max(1e-9, ...values, ...(mc || [])));
  const top = axis[axis.length - 1].v;
  const bw = (W - L - 4) / Math.max(1, n);
  // As many labels as fit side by side (about 6 units a character at this size), the
  // last always, none crowding it (it ends at its bar's right edge: half a label nearer);
  // a label of words takes up to three lines of its column, so that no two bars' labels
  // read the same.
  const widest = Math.min(9, Math.max(1, ...labels.map((l) => l.length)));
  const words = labels.some((l) => /[ _]/.test(l)) && bw >= 36;
  // Over the bars' own width (that of `bw`), so that a label's room holds its widest.
  const every = words ? 1 : Math.max(1, Math.ceil(n * (widest + 1) * 6 / (W - L - 4)));
  const labelled = (i) => i === n - 1 || (i % every === 0 && n - 1 - i >= (every > 1 ? 1.5 * every : 1));
  const room = Math.max(3, Math.floor((every * bw) / 6) - 1);
  const lines = labels.map((l) => wrap(l, room).slice(0, 3));
  const B = 18 + 12 * Math.max(1, ...lines.map((x) => x.length));
  const H = T + PLOT + B;
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img' });
  // Grid lines at every tick, under the bars.
  for (const t of axis) {
    const y = T + PLOT * (1 - t.v / top);
    g.append(svg('line', { class: t.v === 0 ? 'axis' : 'grid', x1: L, x2: W, y1: y, y2: y }));
    g.append(svg('text', { x: L - 4, y: y + 4, 'text-anchor': 'end' }, document.createTextNode(t.text)));
  }
  values.forEach((v, i) => {
    const h = PLOT * (v / top);
    const x = L + i * bw + bw * 0.12;
    g.append(svg('rect', { class: 'bar', x, y: T + PLOT - h, width: bw * 0.76, height: Math.max(0, h) },
      svg('title', {}, document.createTextNode(`${tips ? tips[i] : labels[i]}: ${pct(v)}`))));
    if (mc && mc[i] !== undefined) {
      const hm = PLOT * (mc[i] / top);
      g.append(svg('rect', { class: 'mcbar', x, y: T + PLOT - hm, width: bw * 0.76, height: Math.max(0, hm) }));
    }
    if (labelled(i)) {
      // The last label ends at its bar's right edge, so the chart's edge never cuts it.
      const last = i === n - 1 && n > 1 && !words;
      const cx = last ? x + bw * 0.76 : x + bw * 0.38;
      const t = svg('text', { x: cx, y: T + PLOT + 13, 'text-anchor': last ? 'end' : 'middle' },
        svg('title', {}, document.createTextNode(tips ? tips[i] : labels[i])),
        ...lines[i].map((line, k) => svg('tspan', { x: cx, dy: k ? 12 : 0 }, document.createTextNode(line))));
      g.append(t);
    }
  });
  return g;
}

// One metric: its rows from the exact answer and/or a Monte Carlo one.
function metricBlock(member, m, fr, mcm) {
  const key = `${member}/${m.name}`;
  const mode = modes[m.name] || 'exactly';
  // A number that cannot come up (exact 0, by its fraction where it has one, and no
  // trial gave it) has no row, as in the data files; a named outcome keeps its 0.
  const sparse = m.numeric || m.rows.length > 25;
  const keep = m.rows.map((r, i) => !(sparse && r.exact === 0 && (!fr || !fr[i] || fr[i] === '0/1')
    && !(mcm && mcm.rows[i] && mcm.rows[i].count > 0)));
  const rows = m.rows.map((r, i) => ({ label: r.label, p: r.exact !== null && r.exact !== undefined ? r.exact : r.probability, frac: fr ? fr[i] : null, row: r }))
    .filter((_, i) => keep[i]);
  const mcRows = mcm ? mcm.rows.filter((_, i) => keep[i]) : null;
  const values = cumulative(rows, mode);
  const mcValues = mcRows ? cumulative(mcRows.map((r) => ({ p: r.probability })), mode) : null;
  const radios = el('div', { class: 'modes' }, ...[['exactly', 'exactly'], ['at_least', 'at least'], ['at_most', 'at most']].map(([v, t]) => el('label', {},
    el('input', { type: 'radio', name: 'mode-' + key, value: v, checked: mode === v, onchange: () => { modes[m.name] = v; renderDist(); } }), ' ' + t)));
  const head = el('tr', {}, el('th', { text: m.name }), el('th', { text: mode === 'exactly' ? 'P' : mode === 'at_least' ? 'P(≥)' : 'P(≤)' }));
  const exactShown = !m.exact_missing;
  // A fraction column only where a cell of it has one (none in `at least`/`at most`, none
  // where every denominator is too large for the tables to keep).
  const fracShown = exactShown && mode === 'exactly' && rows.some((r) => r.frac);
  if (fracShown) head.append(el('th', { text: 'fraction' }));
  if (mcRows) head.append(el('th', { text: 'Monte Carlo' }), el('th', { text: '95% CI' }));
  const [lo, hi] = tailWindow(rows, mcRows, m.numeric);
  const tails = rows.length - (hi - lo + 1);
  const all = !!allRows[key];
  const body = rows.map((r, i) => {
    const tr = el('tr', { 'data-value': r.label });
    if (i < lo || i > hi) { tr.classList.add('tail'); tr.hidden = !all; }
    if (exactShown && r.row.exact !== null && r.row.exact !== undefined) tr.setAttribute('data-exact', String(r.row.exact));
    tr.append(el('td', { text: r.label }), el('td', { class: 'p', text: exactShown ? pct(values[i]) : '' }));
    if (fracShown) {
      const whole = r.frac || '';
      const td = el('td', { class: 'frac', text: shortFraction(whole) });
      if (whole.length > SHOWN_FRACTION) td.title = whole;
      tr.append(td);
    }
    if (mcRows) {
      const q = mcRows[i];
      tr.append(el('td', { class: 'mc', text: pct(mcValues[i]) }), el('td', { class: 'mc', text: mode === 'exactly' ? `${pct(q.ci_low)} .. ${pct(q.ci_high)}` : '' }));
    }
    return tr;
  });
  const table = el('table', { class: 'dist', 'data-member': member, 'data-metric': m.name }, el('thead', {}, head), el('tbody', {}, ...body));
  const toggle = tails ? el('button', { class: 'tails', type: 'button', 'data-tails': key,
    text: all ? `Hide the ${tails} values under 0.05% at the ends` : `Show all ${rows.length} values (${tails} under 0.05% at the ends hidden)`,
    onclick: () => { allRows[key] = !all; renderDist(); } }) : null;
  // The chart: the tails folded into `≤x` and `≥y` bars (every value with the tails shown).
  const [clo, chi] = all ? [0, rows.length - 1] : [lo, hi];
  const fold = mode === 'exactly';
  const labels = rows.map((r) => r.label).slice(clo, chi + 1);
  if (clo > 0) labels[0] = '≤' + labels[0];
  if (chi < rows.length - 1) labels[labels.length - 1] = '≥' + labels[labels.length - 1];
  let shownValues = folded(null, exactShown ? values : mcValues, clo, chi, fold);
  let shownMc = exactShown ? folded(null, mcValues, clo, chi, fold) : null;
  let shownLabels = labels, tips;
  const nums = m.numeric ? rows.slice(clo, chi + 1).map((r) => Number(r.label)) : [];
  const ranged = m.numeric ? inRanges(nums, labels, shownValues, shownMc, mode) : null;
  if (ranged) [shownLabels, shownValues, shownMc, tips] = [ranged.labels, ranged.values, ranged.mc, ranged.tips];
  const meanText = m.exact_mean !== null && m.exact_mean !== undefined ? `mean ${mean(m.exact_mean)} (exact)`
    : mcm && mcm.mean !== null ? `mean ${mean(mcm.mean)} [${mean(mcm.mean_ci[0])}, ${mean(mcm.mean_ci[1])}]` : '';
  return el('div', { class: 'metric' },
    el('div', {}, el('h4', { text: m.name.replace(/_/g, ' ') }), el('p', { class: 'about', text: m.description + (m.numeric && meanText ? ` · ${meanText}` : '') }), radios, table, ...(toggle ? [toggle] : []),
      ...(ranged ? [el('p', { class: 'about ranges', text: `The chart: ${ranged.labels.length} bars, ${mode === 'exactly' ? 'each a range of' : 'read every'} ${ranged.width}` })] : [])),
    chart(shownLabels, shownValues, shownMc, tips));
}

const simulated = {}; // member name -> Monte Carlo ScenarioResult for the current gen

function renderDist() {
  const pane = $('pane-dist');
  const kids = [];
  for (const mem of view.members) {
    const ex = mem.exact;
    const mc = simulated[mem.name];
    const base = ex || mc;
    const box = el('div', { class: 'member', 'data-member': mem.name }, el('h2', { text: mem.name }), el('p', { class: 'description', text: mem.description }));
    if (!base) {
      box.append(el('p', { class: 'note', text: 'No exact distribution for this scenario: Monte Carlo is running…' }));
      kids.push(box);
      continue;
    }
    const h = base.headline;
    const value = ex ? h.exact : h.probability;
    const hl = el('p', { class: 'headline' }, `${h.label} = `, el('b', { text: pct(value) }));
    if (ex) hl.append(el('small', { text: 'exact' + (ex.headline_fraction ? ` = ${shortFraction(ex.headline_fraction)}` : '') }));
    else hl.append(el('small', { text: `Monte Carlo, ${mc.trials.toLocaleString()} trials, 95% CI ${pct(h.ci_low)} .. ${pct(h.ci_high)}` }));
    box.append(hl);
    // What the designer should look at though it loads (a `vs` reading one unit's stat on both sides).
    if (base.note) box.append(el('p', { class: 'warning', role: 'alert', text: '⚠ ' + base.note }));
    // What a limit cut (a `repeat`'s rounds, an explosion's depth), in the command line's words.
    if (ex && ex.capped) box.append(el('p', { class: 'note capped', text: ex.capped }));
    base.metrics.forEach((m, i) => {
      const mm = ex ? m : Object.assign({}, m, { exact_missing: true });
      box.append(metricBlock(mem.name, mm, ex ? ex.fractions[i] : null, mc ? mc.metrics[i] : null));
    });
    kids.push(box);
  }
  if (view.members_total > view.members.length) {
    kids.push(el('p', { class: 'note', text: `The first ${view.members.length} of the group's ${view.members_total.toLocaleString()} members: rollsim run ${view.file} -s ${view.target.name} computes them all.` }));
  }
  pane.replaceChildren(...kids);
}

// ---------- balance views ----------
function heat(p) {
  // Red (row loses) through white to blue (row wins).
  const t = Math.max(0, Math.min(1, p));
  const r = t < 0.5 ? 255 : Math.round(255 - (t - 0.5) * 2 * 180);
  const b = t > 0.5 ? 255 : Math.round(255 - (0.5 - t) * 2 * 180);
  const g = Math.round(255 - Math.abs(t - 0.5) * 2 * 150);
  return `rgb(${r},${g},${b})`;
}
function matrixTable(m) {
  const head = el('tr', {}, el('th', { text: `${m.rows.key} \\ ${m.cols.key}` }), ...m.cols.entries.map(([, n]) => el('th', { text: n })));
  const rows = m.cells.map((row, i) => el('tr', {}, el('th', { text: m.rows.entries[i][1] }), ...row.map((c) => c.error
    ? el('td', { title: c.error, text: '—' })
    : el('td', { style: m.probability ? `background:${heat(c.estimate)}` : null, title: c.response ? `response: ${c.response}` : null, text: m.probability ? pct(c.estimate) : num(c.estimate) }))));
  return el('div', {}, el('h4', { text: `${m.scenario}: ${m.what}` }), el('p', { class: 'note', text: m.how }), el('table', { class: 'heat' }, el('thead', {}, head), el('tbody', {}, ...rows)));
}
function renderBalance(res) {
  const pane = $('pane-' + state.tab);
  // `rollsim compare`, `sensitivity` or `roster`: the command that prints this table.
  $('command').textContent = res.command;
  if (res.view === 'matrix') {
    pane.replaceChildren(...res.matrices.map(matrixTable));
  } else if (res.view === 'sensitivity') {
    // One table and one bar scale per member and quantity: points of a probability, an
    // expected winner and a number of rounds are not one axis.
    const groups = [];
    for (const r of res.rows) {
      let g = groups.find((x) => x.scenario === r.scenario && x.quantity === r.quantity);
      if (!g) groups.push(g = { scenario: r.scenario, quantity: r.quantity, rows: [] });
      g.rows.push(r);
    }
    const kids = [el('p', { class: 'note', text: `One step in each side's favour (${res.how}).` })];
    for (const g of groups) {
      const top = Math.max(1e-9, ...g.rows.map((r) => Math.abs(r.change_in_value)));
      // A change's step (`10 -> 9`) stays on one line: the name before it may wrap.
      const step = (c) => {
        const m = c.match(/^(.*?)(\S+ -> \S+)$/);
        return m ? [m[1], el('span', { class: 'step', text: m[2] })] : [c];
      };
      const rows = g.rows.map((r) => el('tr', {}, el('td', {}, ...step(r.change)),
        el('td', { text: r.probability ? pct(r.before) : num(r.before) }), el('td', { text: r.probability ? pct(r.after) : num(r.after) }),
        el('td', { text: r.probability ? signed(100 * r.change_in_value, 2) + ' pts' : signed(r.change_in_value, Math.abs(r.change_in_value) >= 100 ? 1 : 4) }),
        el('td', { class: 'bar' }, el('span', { class: r.change_in_value >= 0 ? 'pos' : 'neg', style: `width:${(100 * Math.abs(r.change_in_value) / top).toFixed(1)}%` }))));
      kids.push(el('h4', { text: `${g.scenario}: ${g.quantity}` }),
        el('table', { class: 'bars', 'data-quantity': g.quantity }, el('thead', {}, el('tr', {}, ...['change', 'before', 'after', 'worth', ''].map((t) => el('th', { text: t })))), el('tbody', {}, ...rows)));
    }
    if (res.refused.length) kids.push(el('p', { class: 'note', text: 'Refused by the rules: ' + res.refused.map((x) => `${x.change} (${x.why})`).join('; ') }));
    pane.replaceChildren(...kids);
  } else {
    // Only the stats the config can price on (`counts`, from the server: more of a unit,
    // as `rollsim roster --count` takes them); none, and there is no menu.
    const count = res.counts.length
      ? el('select', { id: 'count-stat', 'aria-label': 'count stat', onchange: (e) => { state.count = e.target.value || null; writeUrl(); refreshBalance(); } },
        el('option', { value: '', text: 'no costs' }), ...res.counts.map((s) => el('option', { value: s, text: `price on ${s}` })))
      : el('span', { class: 'note', text: 'No stat of these units counts them (models, dice, hit points): no costs to suggest.' });
    count.value = state.count || '';
    // `rollsim roster`'s own tables, cell for cell (the server makes them with the
    // functions the command line prints them with); each row knows its unit.
    const cliTable = (t, ids, cls) => el('table', { class: cls }, el('thead', {}, el('tr', {}, ...t.head.map((h) => el('th', { text: h })))),
      el('tbody', {}, ...t.rows.map((r, i) => el('tr', { 'data-unit': ids[i] }, ...r.map((c) => el('td', { text: c }))))));
    const kids = [el('p', { class: 'note', text: `Both seats; ${res.how}. Game value ${pct(res.value)}; cyclic share ${pct(res.cyclic)}.` }),
      cliTable(res.table, res.units.map((u) => u.unit), 'roster'),
      // The menu says what it is beside it, not only in its first option.
      el('p', {}, ...(res.counts.length ? [el('label', { for: 'count-stat', text: 'Point costs: ' })] : []), count)];
    if (res.costs) kids.push(cliTable(res.costs.table, res.costs.rows.map((c) => c.unit), 'costs'));
    kids.push(matrixTable(res.matrix));
    pane.replaceChildren(...kids);
  }
}
async function refreshBalance() {
  if (state.tab === 'dist' || !state.file) { abort('balance'); return; }
  const mine = gen;
  busy(true);
  progress('computing…', 0);
  try {
    const body = { file: state.file, scenario: state.scenario, sets: state.sets, view: state.tab };
    if (state.tab === 'roster' && state.count) body.count = state.count;
    const res = await streamed('balance', '/api/balance', body, (f) => progress('computing…', f));
    if (mine !== gen) return;
    renderBalance(res);
    problem(null);
  } catch (e) {
    if (isAbort(e) || mine !== gen) return;
    if (state.tab === 'roster' && state.count) {
      // A price the rules refuse: the roster without costs again, and why, in the alert.
      state.count = null;
      writeUrl();
      await refreshBalance();
      problem(e.message);
      return;
    }
    $('pane-' + state.tab).replaceChildren(el('p', { class: 'note', text: e.message }));
  }
  progress(null);
  busy(false);
}

// ---------- one change: view, then Monte Carlo or a balance view ----------
async function refresh() {
  writeUrl();
  const mine = ++gen;
  abort('sim');
  abort('balance');
  progress(null);
  busy(true);
  let r;
  try {
    ({ r } = await post('view', '/api/view', { file: state.file, scenario: state.scenario, sets: state.sets }));
    const answer = await r.json();
    if (moved !== null) window.rollsimStages.push({ answered: performance.now() - moved });
    if (mine !== gen) return;
    if (!r.ok) { problem(answer.error); progress(null); busy(false); return; }
    problem(null);
    view = answer;
    state.scenario = view.target.name;
    writeUrl();
  } catch (e) {
    if (isAbort(e) || mine !== gen) return;
    problem(String(e.message || e));
    busy(false);
    return;
  }
  for (const k of Object.keys(simulated)) delete simulated[k];
  fillScenarios();
  renderControls();
  // `rollsim run` makes the distribution; a balance tab's command comes with its answer.
  $('command').textContent = state.tab === 'dist' ? view.command : '';
  if (state.tab === 'dist') {
    renderDist();
    if (moved !== null) {
      const built = performance.now() - moved;
      // Rendered: the new table laid out (reading a size forces the layout now).
      void document.body.offsetHeight;
      const total = performance.now() - moved;
      window.rollsimTimings.push(total);
      const last = window.rollsimStages[window.rollsimStages.length - 1];
      if (last) Object.assign(last, { built, total });
      moved = null;
    }
    const missing = view.members.filter((m) => !m.exact);
    if (missing.length) {
      progress('Monte Carlo…', 0);
      try {
        const res = await streamed('sim', '/api/simulate', { file: state.file, scenario: state.scenario, sets: state.sets }, (f) => progress('Monte Carlo…', f));
        if (mine !== gen) return;
        for (const s of res) simulated[s.name] = s;
        renderDist();
      } catch (e) {
        if (isAbort(e) || mine !== gen) return;
        problem(e.message);
      }
      progress(null);
    }
    busy(false);
  } else {
    await refreshBalance();
  }
}

// ---------- the dice box ----------
let rollTimer = null;
async function roll() {
  const expr = $('expr').value;
  state.expr = expr;
  writeUrl();
  const err = $('expr-error');
  const out = $('expr-result');
  if (!expr.trim()) { err.hidden = true; out.replaceChildren(); abort('roll'); return; }
  document.body.dataset.dice = 'busy';
  try {
    const { r } = await post('roll', '/api/roll', { expr });
    const a = await r.json();
    if (!r.ok) {
      err.hidden = false;
      const col = a.column === undefined ? null : a.column;
      err.dataset.column = col === null ? '' : String(col + 1);
      err.textContent = col === null ? a.error : `${expr}\n${' '.repeat(col)}^ ${a.error}`;
      out.replaceChildren();
    } else {
      err.hidden = true;
      let result = a.exact;
      let mc = null;
      if (!result) {
        out.replaceChildren(el('p', { class: 'note', text: 'No exact distribution: Monte Carlo…' }));
        const res = await streamed('roll', '/api/simulate', { expr }, () => {});
        mc = res[0];
      }
      const base = result || mc;
      const kids = [el('p', { class: 'headline' }, `${base.headline.label} = `, el('b', { text: pct(result ? base.headline.exact : base.headline.probability) }))];
      // What the command line says beside the numbers: a warning (`10d6 >= 5` always
      // holds), and what a limit cut.
      if (base.note) kids.push(el('p', { class: 'warning', role: 'alert', text: '⚠ ' + base.note }));
      if (result && result.capped) kids.push(el('p', { class: 'note capped', text: result.capped }));
      base.metrics.forEach((m, i) => kids.push(metricBlock('roll', result ? m : Object.assign({}, m, { exact_missing: true }), result ? result.fractions[i] : null, mc ? mc.metrics[i] : null)));
      out.replaceChildren(...kids);
    }
  } catch (e) {
    if (isAbort(e)) return;
    err.hidden = false;
    err.textContent = e.message;
  }
  document.body.dataset.dice = 'ready';
}

// ---------- save ----------
async function save(replace) {
  const name = $('save-name').value.trim();
  const r = await fetch('/api/save', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file: state.file, scenario: state.scenario, sets: state.sets, name, replace }) });
  const a = await r.json();
  if (r.status === 409 && !replace) {
    if (confirm(`${name} exists. Replace it?`)) return save(true);
    $('save-message').textContent = a.error;
    return false;
  }
  if (!r.ok) { $('save-message').textContent = a.error; return false; }
  $('save-dialog').close();
  problem(null);
  $('command').textContent = `Saved: ${a.command}`;
  await loadConfigs();
  $('config').value = state.file;
  return true;
}

// ---------- wiring ----------
function setTab(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.tab === tab);
  for (const p of document.querySelectorAll('.pane')) p.hidden = p.id !== 'pane-' + tab;
}

async function main() {
  readUrl();
  setTab(state.tab);
  $('expr').value = state.expr;
  await loadConfigs();
  $('config').addEventListener('change', (e) => { state.file = e.target.value; state.scenario = null; state.sets = []; state.count = null; controlsShape = ''; refresh(); });
  $('scenario').addEventListener('change', (e) => { state.scenario = e.target.value; controlsShape = ''; refresh(); });
  $('reset').addEventListener('click', () => { state.sets = []; refresh(); });
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => { setTab(b.dataset.tab); refresh(); });
  $('expr').addEventListener('input', () => { clearTimeout(rollTimer); rollTimer = setTimeout(roll, 120); });
  $('save').addEventListener('click', () => {
    $('save-from').textContent = state.file;
    $('save-name').value = state.file.replace(/\.toml$/, '') + '-tuned.toml';
    $('save-message').textContent = '';
    $('save-dialog').showModal();
  });
  $('save-go').addEventListener('click', (e) => { e.preventDefault(); save(false); });
  if (state.expr) roll();
  if (state.file) await refresh();
  else { problem('No config in this folder loads: rollsim serve takes the folder of your *.toml configs.'); busy(false); }
}
main();
