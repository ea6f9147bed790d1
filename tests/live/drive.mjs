// Drives the live page in headless chromium as a designer would: open a scenario, move a
// slider with the keyboard (or pick an entry from a select), read the table the page shows,
// reload the URL and read it again, type a broken dice expression. Prints what it saw as
// JSON; tests/live.rs compares it with `rollsim run --exact-only` and asserts.
//
//   node drive.mjs BASE_URL PLAN.json SCREENSHOT.png
//
// PLAN: {"steps": [{"name", "config", "scenario", "actions": [{"key", "press"} |
//        {"key", "select"}]}], "expr": "broken expression", "said": ["expression", ...],
//        "latency": [...]}
import puppeteer from 'puppeteer-core';
import { readFileSync } from 'node:fs';

const [base, planFile, shot] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, 'utf8'));

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const out = { steps: [], dice: null, latency: [] };
try {
  const page = await browser.newPage();
  await page.setViewport({ width: plan.width || 1280, height: 1000 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // A style or script the Content-Security-Policy refused is a console error, not a throw.
  // (An answer's 4xx status, such as the broken expression's 422, is logged too: not one.)
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });

  const gen = () => page.evaluate(() => Number(document.body.dataset.gen || 0));
  // Wait until the page has answered a change newer than `after` and is idle.
  const settle = (after) => page.waitForFunction(
    (g) => document.body.dataset.state === 'ready' && Number(document.body.dataset.gen) > g,
    { timeout: 20000 }, after);
  const tables = () => page.evaluate(() => [...document.querySelectorAll('#pane-dist table.dist')].map((t) => ({
    member: t.dataset.member,
    metric: t.dataset.metric,
    rows: [...t.querySelectorAll('tbody tr')].map((r) => ({
      value: r.dataset.value,
      hidden: r.hidden,
      exact: r.dataset.exact === undefined ? null : r.dataset.exact,
      shown: r.querySelector('td.p').textContent,
      fraction: r.querySelector('td.frac') ? r.querySelector('td.frac').textContent : null,
      whole: r.querySelector('td.frac') ? r.querySelector('td.frac').title : null,
    })),
  })));
  const sets = () => page.evaluate(() => new URLSearchParams(location.search).getAll('set'));
  const control = (key) => `[data-key="${key}"] [data-key]`;

  for (const step of plan.steps) {
    const url = `${base}/?config=${encodeURIComponent(step.config)}&scenario=${encodeURIComponent(step.scenario)}`;
    await page.goto(url);
    await settle(0);
    const before = await tables();
    for (const a of step.actions) {
      const g = await gen();
      await page.waitForSelector(control(a.key), { timeout: 10000 });
      if (a.select !== undefined) {
        await page.select(control(a.key), a.select);
      } else {
        await page.focus(control(a.key));
        await page.keyboard.press(a.press);
      }
      await settle(g);
    }
    const after = await tables();
    const shownUrl = page.url();
    const record = { name: step.name, url: shownUrl, sets: await sets(), before, after };
    if (step.shot) await page.screenshot({ path: shot, fullPage: true });
    // The URL holds the whole state: opening it again shows the same view.
    await page.goto('about:blank');
    await page.goto(shownUrl);
    await settle(0);
    record.reloaded = await tables();
    record.reloadedSets = await sets();
    record.command = await page.evaluate(() => document.getElementById('command').textContent);
    out.steps.push(record);
  }

  if (plan.expr) {
    await page.goto(`${base}/?config=rush.toml`);
    await settle(0);
    await page.click('#expr');
    await page.keyboard.type(plan.expr, { delay: 5 });
    // The answer to the whole expression, not to a prefix an earlier keystroke sent
    // (the error's first line is the expression it is about).
    await page.waitForFunction((expr) => {
      const e = document.getElementById('expr-error');
      return !e.hidden && document.body.dataset.dice === 'ready'
        && e.textContent.split('\n')[0] === expr;
    }, { timeout: 10000 }, plan.expr);
    out.dice = await page.evaluate(() => {
      const e = document.getElementById('expr-error');
      return { text: e.textContent, column: e.dataset.column };
    });
  }

  // Expressions whose answer comes with words beside the numbers (a warning, what a
  // limit cut): each set in the box at once (no prefix answered), then what it says.
  out.said = [];
  for (const expr of plan.said || []) {
    await page.evaluate((x) => {
      const box = document.getElementById('expr');
      box.value = x;
      box.dispatchEvent(new Event('input'));
    }, expr);
    await new Promise((r) => setTimeout(r, 300));
    await page.waitForFunction(() => document.body.dataset.dice === 'ready'
      && document.querySelector('#expr-result p.headline'), { timeout: 20000 });
    out.said.push(await page.evaluate((x) => {
      const text = (sel) => [...document.querySelectorAll(`#expr-result ${sel}`)].map((p) => p.textContent);
      return { expr: x, warning: text('p.warning'), capped: text('p.capped') };
    }, expr));
  }

  // A wide distribution: its tails hidden in the table and folded in the chart, then
  // every row shown by the button under the table.
  if (plan.tails) {
    await page.goto(`${base}/?config=${encodeURIComponent(plan.tails.config)}&scenario=${encodeURIComponent(plan.tails.scenario)}`);
    await settle(0);
    const charts = () => page.evaluate(() => [...document.querySelectorAll('#pane-dist svg.chart')].map((s) =>
      [...s.querySelectorAll('text')].map((t) => { const b = t.getBBox(); return { text: t.textContent, x: b.x, y: b.y, width: b.width, height: b.height }; })));
    out.tails = { before: await tables(), charts: await charts() };
    if (plan.tails.shot) await page.screenshot({ path: plan.tails.shot, fullPage: false });
    await page.click('#pane-dist button.tails');
    await page.waitForFunction(() => document.querySelector('#pane-dist table.dist tbody tr.tail:not([hidden])') !== null, { timeout: 10000 });
    out.tails.after = await tables();
    out.tails.button = await page.$eval('#pane-dist button.tails', (b) => b.textContent);
    out.tails.chartsAll = await charts();
    // Every value shown: more than a chart's bars, drawn in ranges, as a note says.
    out.tails.barsAll = await page.evaluate(() => [...document.querySelectorAll('#pane-dist svg.chart')].map((s) => s.querySelectorAll('rect.bar').length));
    out.tails.rangesAll = await page.evaluate(() => [...document.querySelectorAll('#pane-dist p.ranges')].map((p) => p.textContent));
  }

  // The balance tabs on the same knobs: each draws its view.
  if (plan.tabs) {
    const sets = (plan.tabs.sets || []).map((s) => `&set=${encodeURIComponent(s)}`).join('');
    await page.goto(`${base}/?config=${encodeURIComponent(plan.tabs.config)}&scenario=${encodeURIComponent(plan.tabs.scenario)}${sets}`);
    await settle(0);
    out.tabs = {};
    for (const tab of ['matrix', 'sensitivity', 'roster']) {
      const g = await gen();
      await page.click(`#tabs button[data-tab="${tab}"]`);
      await settle(g);
      out.tabs[tab] = await page.evaluate((t) => {
        const pane = document.getElementById('pane-' + t);
        return {
          url: location.search,
          cells: [...pane.querySelectorAll('table.heat tbody td')].map((td) => td.textContent),
          colours: [...pane.querySelectorAll('table.heat tbody td')].map((td) => getComputedStyle(td).backgroundColor),
          bars: [...pane.querySelectorAll('.bars td.bar span')].map((b) => b.getBoundingClientRect().width),
          rows: pane.querySelectorAll('table tbody tr').length,
          text: pane.textContent.slice(0, 400),
          scales: [...pane.querySelectorAll('table.bars')].map((t) => ({ quantity: t.dataset.quantity,
            widths: [...t.querySelectorAll('td.bar span')].map((s) => parseFloat(s.style.width)) })),
          roster: [...pane.querySelectorAll('table.roster tbody tr')].map((tr) => ({
            unit: tr.dataset.unit, cells: [...tr.children].map((td) => td.textContent) })),
          // The command printed under the tab, the sensitivity's `worth` cells, the
          // roster's price menu (null: no menu).
          command: document.getElementById('command').textContent,
          worth: [...pane.querySelectorAll('table.bars tbody tr')].map((tr) => tr.children[3].textContent),
          counts: pane.querySelector('select[aria-label="count stat"]')
            ? [...pane.querySelectorAll('select[aria-label="count stat"] option')].map((o) => o.value).filter(Boolean) : null,
          // Each sensitivity change's step (`10 -> 9`): on how many lines it stands.
          stepLines: [...pane.querySelectorAll('table.bars tbody tr td:first-child')].map((td) => {
            const text = td.textContent;
            const m = text.match(/\S+ -> \S+$/);
            if (!m) return 0;
            const r = document.createRange();
            const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
            let pos = 0, node, begun = false;
            while ((node = walk.nextNode())) {
              const len = node.textContent.length;
              if (!begun && m.index < pos + len) { r.setStart(node, m.index - pos); begun = true; }
              if (begun && text.length <= pos + len) { r.setEnd(node, text.length - pos); break; }
              pos += len;
            }
            return new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top))).size;
          }),
          // The menu's visible label, where a label names it.
          countLabel: (() => {
            const s = pane.querySelector('select[aria-label="count stat"]');
            const l = s && s.id ? pane.querySelector(`label[for="${s.id}"]`) : null;
            return l ? l.textContent : null;
          })(),
        };
      }, tab);
    }
    // The roster priced on a stat, as `rollsim roster --count STAT` prices it.
    if (plan.tabs.count) {
      // A price stat redraws the roster tab alone (no new generation): wait for its table.
      await page.select('#pane-roster select[aria-label="count stat"]', plan.tabs.count);
      await page.waitForSelector('#pane-roster table.costs', { timeout: 20000 });
      await page.waitForFunction(() => document.body.dataset.state === 'ready', { timeout: 20000 });
      out.tabs.costs = await page.evaluate(() => [...document.querySelectorAll('#pane-roster table.costs tbody tr')]
        .map((tr) => ({ unit: tr.dataset.unit, cells: [...tr.children].map((td) => td.textContent) })));
      out.tabs.costsCommand = await page.$eval('#command', (e) => e.textContent);
      // The price stat is in the URL: the same page opened from it is priced again.
      out.tabs.costsUrl = await page.evaluate(() => location.search);
      await page.goto(page.url());
      await settle(0);
      await page.waitForSelector('#pane-roster table.costs', { timeout: 20000 });
      out.tabs.costsReloaded = await page.evaluate(() => [...document.querySelectorAll('#pane-roster table.costs tbody tr')]
        .map((tr) => ({ unit: tr.dataset.unit, cells: [...tr.children].map((td) => td.textContent) })));
    }
  }

  // A price stat the server refuses (as a stale menu would offer it), then one it takes:
  // the roster must stay, with the reason in the alert, and the menu still work.
  if (plan.refuse) {
    const r = plan.refuse;
    const menu = '#pane-roster select[aria-label="count stat"]';
    await page.goto(`${base}/?config=${encodeURIComponent(r.config)}&scenario=${encodeURIComponent(r.scenario)}&tab=roster`);
    await settle(0);
    await page.$eval(menu, (s, v) => s.append(new Option(`price on ${v}`, v)), r.stat);
    await page.select(menu, r.stat);
    await page.waitForFunction(() => document.body.dataset.state === 'ready', { timeout: 20000 });
    out.refuse = await page.evaluate((m) => ({
      problem: document.getElementById('problem').hidden ? null : document.getElementById('problem').textContent,
      rosters: document.querySelectorAll('#pane-roster table.roster').length,
      menu: document.querySelector(m) ? document.querySelector(m).value : null,
    }), menu);
    if (out.refuse.menu !== null) {
      await page.select(menu, r.then);
      await page.waitForSelector('#pane-roster table.costs', { timeout: 20000 });
      await page.waitForFunction(() => document.body.dataset.state === 'ready', { timeout: 20000 });
      out.refuse.priced = await page.$$eval('#pane-roster table.costs tbody tr', (trs) => trs.length);
      out.refuse.problemAfter = await page.$eval('#problem', (e) => (e.hidden ? null : e.textContent));
    }
  }

  // Charts, tables and the sidebar as drawn: each chart's axis labels (a label's lines
  // joined by spaces) with their boxes, its y ticks and grid lines; each table's header,
  // rows (visible or not) and the metric's `mean`; the sidebar's names cut short.
  for (const c of plan.charts || []) {
    const sets = (c.sets || []).map((s) => `&set=${encodeURIComponent(s)}`).join('');
    await page.goto(`${base}/?config=${encodeURIComponent(c.config)}&scenario=${encodeURIComponent(c.scenario)}${sets}`);
    await settle(0);
    out.charts = out.charts || [];
    out.charts.push(await page.evaluate(() => ({
      cut: [...document.querySelectorAll('#controls .control label')].filter((l) => l.scrollWidth > l.clientWidth + 0.5).map((l) => l.textContent),
      metrics: [...document.querySelectorAll('#pane-dist .metric')].map((m) => {
        const s = m.querySelector('svg.chart');
        const texts = [...s.querySelectorAll(':scope > text')];
        // y ticks: right-aligned left of the plot; the rest label the bars.
        const left = Math.min(...[...s.querySelectorAll('rect.bar')].map((r) => r.getBBox().x));
        const isTick = (t) => t.getBBox().x + t.getBBox().width <= left;
        const parts = (t) => (t.querySelector('tspan') ? [...t.querySelectorAll('tspan')] : [t]);
        const t = m.querySelector('table.dist');
        return {
          metric: t.dataset.metric,
          about: m.querySelector('.about').textContent,
          head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
          fractions: t.querySelectorAll('td.frac').length,
          rows: [...t.querySelectorAll('tbody tr')].map((tr) => ({ value: tr.dataset.value, hidden: tr.hidden, exact: Number(tr.dataset.exact) })),
          ticks: texts.filter(isTick).map((x) => ({ text: x.textContent, y: x.getBBox().y })),
          grid: [...s.querySelectorAll('line')].map((l) => Number(l.getAttribute('y1'))),
          tallest: Math.min(...[...s.querySelectorAll('rect.bar')].map((r) => r.getBBox().y)),
          labels: texts.filter((x) => !isTick(x)).map((x) => parts(x).map((p) => p.textContent).join(' ')),
          boxes: texts.filter((x) => !isTick(x)).flatMap((x) => parts(x).map((p) => { const b = p.getBBox(); return { text: p.textContent, x: b.x, y: b.y, width: b.width }; })),
        };
      }),
    })));
  }

  // Latency: a control change to the new exact result rendered, as the page measures it
  // (performance.now() at the input event, again after the table is drawn).
  for (const l of plan.latency || []) {
    await page.goto(`${base}/?config=${encodeURIComponent(l.config)}&scenario=${encodeURIComponent(l.scenario)}`);
    await settle(0);
    const ok = await page.$(control(l.key));
    if (!ok) { out.latency.push({ ...l, error: 'no such control' }); continue; }
    await page.evaluate(() => { window.rollsimTimings = []; window.rollsimStages = []; });
    // Back and forth inside the slider's range, so that every press changes the value.
    const atTop = await page.$eval(control(l.key), (e) => Number(e.value) >= Number(e.max));
    const [there, back] = atTop ? ['ArrowLeft', 'ArrowRight'] : ['ArrowRight', 'ArrowLeft'];
    for (let i = 0; i < l.moves; i++) {
      const g = await gen();
      await page.focus(control(l.key));
      await page.keyboard.press(i % 2 ? back : there);
      await settle(g);
    }
    out.latency.push({ ...l, ms: await page.evaluate(() => window.rollsimTimings), stages: await page.evaluate(() => window.rollsimStages) });
  }
  out.errors = errors;
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
