// Charts drawn as SVG by hand (no library): horizontal bar charts for the
// preemption review and a job's timeline; the colours of partitions.

import {fmtDuration, fmtNum, fmtStamp, fmtTime, s} from './dom.js';

// Partition colours, highest PriorityTier first: live trading gets the
// warm colour that says "do not touch", development the quiet one.
const PALETTE = ['#d9480f', '#1c7ed6', '#2f9e44', '#7048e8', '#0c8599',
                 '#c2255c', '#e67700', '#5c940d'];

// name -> colour, for partitions given with their priority_tier.
export function partitionColors(parts) {
  const sorted = [...parts].sort((a, b) =>
      (b.priority_tier - a.priority_tier) || a.name.localeCompare(b.name));
  const colors = {};
  sorted.forEach((p, i) => { colors[p.name] = PALETTE[i % PALETTE.length]; });
  return colors;
}

// A horizontal bar chart: rows [{name, value, flagged}], values formatted
// by fmt.  Each bar carries data-name and data-value for tests.
export function barChart(rows, {fmt = (v) => fmtNum(v, 3), unit = '',
                                 chart = '', width = 560} = {}) {
  const barH = 22, gap = 8, labelW = 130, valueW = 90;
  const max = Math.max(0, ...rows.map((r) => r.value));
  const plotW = width - labelW - valueW;
  const height = Math.max(1, rows.length) * (barH + gap) + gap;
  const svg = s('svg', {class: 'chart', 'data-chart': chart, role: 'img',
                        viewBox: `0 0 ${width} ${height}`, width, height});
  if (rows.length === 0) {
    svg.append(s('text', {x: 0, y: barH, class: 'muted'}, 'nothing to show'));
    return svg;
  }
  rows.forEach((r, i) => {
    const y = gap + i * (barH + gap);
    const w = max > 0 ? Math.max(r.value > 0 ? 2 : 0, (r.value / max) * plotW) : 0;
    svg.append(
        s('text', {x: labelW - 8, y: y + barH * 0.7, 'text-anchor': 'end',
                   class: 'label'}, r.name),
        s('rect', {x: labelW, y, width: plotW, height: barH, class: 'track'}),
        s('rect', {x: labelW, y, width: w.toFixed(1), height: barH,
                   class: r.flagged ? 'bar flagged' : 'bar',
                   'data-name': r.name, 'data-value': r.value},
          s('title', {}, `${r.name}: ${fmt(r.value)}${unit}`)),
        s('text', {x: labelW + plotW + 8, y: y + barH * 0.7, class: 'value'},
          `${fmt(r.value)}${unit}`));
  });
  return svg;
}

// The phases of a job's life from its events (sacct's): pending, running
// and suspended stretches, and the moments that matter on top.
export function phases(events, job, now) {
  const out = [], marks = [];
  let state = 'pending', since = null;
  const close = (t) => {
    if (since !== null && t >= since) out.push({state, from: since, to: t});
  };
  for (const ev of events) {
    const t = ev.time;
    switch (ev.event) {
    case 'submit': if (since === null) { state = 'pending'; since = t; } break;
    case 'start': close(t); state = 'running'; since = t; break;
    case 'suspend': close(t); state = 'suspended'; since = t; break;
    case 'resume': close(t); state = 'running'; since = t; break;
    case 'requeue': close(t); state = 'pending'; since = t; break;
    case 'end': close(t); state = 'ended'; since = null; break;
    default: break;
    }
    if (['preempt', 'requeue', 'checkpoint', 'cancel', 'timeout',
         'node_fail', 'fail', 'signal', 'hold', 'release', 'end']
            .includes(ev.event))
      marks.push(ev);
  }
  if (since !== null && state !== 'ended') {
    const end = job.end_time || now;
    if (end >= since) out.push({state, from: since, to: end, open: true});
  }
  return {phases: out, marks};
}

// The timeline of a job: one lane of phases over time, with markers.
export function timeline(events, job, now, color) {
  const {phases: ph, marks} = phases(events, job, now);
  const width = 900, laneY = 28, laneH = 26, height = 86, left = 8, right = 8;
  const t0 = ph.length ? ph[0].from : (job.submit_time || now);
  const t1 = Math.max(t0 + 1, ph.length ? ph[ph.length - 1].to : now);
  const x = (t) => left + ((t - t0) / (t1 - t0)) * (width - left - right);
  const svg = s('svg', {class: 'timeline', viewBox: `0 0 ${width} ${height}`,
                        role: 'img',
                        'data-job-id': job.job_id});
  svg.append(s('rect', {x: left, y: laneY, width: width - left - right,
                        height: laneH, class: 'track'}));
  for (const p of ph) {
    const r = s('rect', {x: x(p.from).toFixed(1), y: laneY,
                         width: Math.max(1.5, x(p.to) - x(p.from)).toFixed(1),
                         height: laneH, class: `phase ph-${p.state}`,
                         'data-phase': p.state},
                s('title', {}, `${p.state} ${fmtStamp(p.from)} → ` +
                  `${p.open ? 'now' : fmtStamp(p.to)} (${fmtDuration(p.to - p.from)})`));
    if (p.state === 'running' && color) r.style.fill = color;
    svg.append(r);
  }
  for (const m of marks) {
    const mx = x(m.time);
    svg.append(s('g', {class: `mark mk-${m.event}`, 'data-event': m.event},
                 s('line', {x1: mx, x2: mx, y1: laneY - 8, y2: laneY + laneH + 4}),
                 s('circle', {cx: mx, cy: laneY - 10, r: 4}),
                 s('title', {}, `${m.event} ${fmtStamp(m.time)} ${m.detail || ''}`)));
  }
  // the axis: start and end, and the middle
  const ticks = [t0, (t0 + t1) / 2, t1];
  ticks.forEach((t, i) => {
    svg.append(s('text', {x: x(t), y: height - 8, class: 'tick',
                          'text-anchor': ['start', 'middle', 'end'][i]},
                 fmtTime(Math.round(t), now)));
  });
  return svg;
}
