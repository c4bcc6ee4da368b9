// Small helpers for building the dashboard's DOM and formatting values.
// Text always goes in through textContent (never innerHTML): job names,
// reasons and output are the users' and must not become markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

function put(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = String(v);
    else if (k.startsWith('on') && typeof v === 'function')
      el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object')
      Object.assign(el.style, v); // CSSOM, allowed by the page's CSP
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// h('div', {class: 'x', 'data-job-id': 4}, child, 'text', [more])
export function h(tag, attrs, ...children) {
  return put(document.createElement(tag), attrs, children);
}

// s('rect', {x: 0, width: 10}): an SVG element.
export function s(tag, attrs, ...children) {
  return put(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

const pad = (n) => String(n).padStart(2, '0');

// A point in time: "17:05:33" today, "Dec 6 17:05" otherwise; "-" for none.
export function fmtTime(t, now) {
  if (t === null || t === undefined || t <= 0) return '-';
  const d = new Date(t * 1000);
  const today = new Date((now || Date.now() / 1000) * 1000);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (d.toDateString() === today.toDateString())
    return `${hm}:${pad(d.getSeconds())}`;
  return `${d.toLocaleString('en', {month: 'short'})} ${d.getDate()} ${hm}`;
}

// The full date and time, for tooltips.
export function fmtStamp(t) {
  if (t === null || t === undefined || t <= 0) return '-';
  const d = new Date(t * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
      `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// A duration: "42s", "5m 03s", "2h 07m", "3d 4h"; "-" for none.
export function fmtDuration(secs) {
  if (secs === null || secs === undefined || secs < 0) return '-';
  secs = Math.round(secs);
  if (secs < 60) return `${secs}s`;
  if (secs < 3600) return `${Math.floor(secs / 60)}m ${pad(secs % 60)}s`;
  if (secs < 86400)
    return `${Math.floor(secs / 3600)}h ${pad(Math.floor(secs / 60) % 60)}m`;
  return `${Math.floor(secs / 86400)}d ${Math.floor(secs / 3600) % 24}h`;
}

// A time limit: "UNLIMITED" for none.
export function fmtLimit(secs) {
  return secs === null || secs === undefined ? 'UNLIMITED' : fmtDuration(secs);
}

// A number with at most `digits` decimals, no trailing zeros.
export function fmtNum(x, digits = 2) {
  if (x === null || x === undefined || Number.isNaN(x)) return '-';
  return Number(x).toLocaleString('en', {maximumFractionDigits: digits});
}

export function fmtPct(x) {
  if (x === null || x === undefined) return '-';
  return `${Math.round(x * 100)}%`;
}

// A state as a coloured chip: <span class="chip st-running">RUNNING</span>
export function stateChip(state) {
  const st = String(state || 'UNKNOWN');
  return h('span', {class: `chip st-${st.toLowerCase()}`, 'data-state': st},
           st);
}

// A bar filled to frac (0..1) of its width.
export function meter(frac, cls) {
  const f = Math.max(0, Math.min(1, frac || 0));
  return h('span', {class: `meter ${cls || ''}`},
           h('span', {class: 'fill', style: {width: `${(f * 100).toFixed(1)}%`}}));
}
