// The dashboard's views, each drawn from the /sluice/v1 API: the cluster
// (GPU map, partitions, who waits), the queue (reasons, explain on click),
// one job (timeline, events, output), the preemption review, fair-share.
// Stable hooks for tests and scripts: data-node, data-gpu, data-job-id,
// data-state, data-partition, data-view.

import {barChart, partitionColors, timeline} from './charts.js';
import {clear, fmtDuration, fmtLimit, fmtNum, fmtPct, fmtStamp, fmtTime, h,
        meter, stateChip} from './dom.js';

// What survives a refresh: the partitions' colours, the queue's filter
// and the explains open in it, the preemption window.
const keep = {
  colors: null,
  filter: '',
  stateFilter: 'all',
  open: new Set(),
  explains: new Map(),
  window: 7 * 86400,
  jobExplain: null,
  output: null,
};

const UNAVAILABLE = ['DOWN', 'DRAIN', 'DRAINING', 'INVALID', 'UNKNOWN'];

async function loadColors(api) {
  if (!keep.colors) keep.colors = partitionColors((await api('/cluster')).partitions);
  return keep.colors;
}

function swatch(colors, part) {
  return h('span', {class: 'swatch', style: {background: colors[part] || '#868e96'}});
}

function jobLink(id) {
  return h('a', {href: `#/job/${id}`, class: 'jobid', 'data-job-link': id}, String(id));
}

function tile(label, value, sub, extra) {
  return h('div', {class: 'tile', 'data-tile': label},
           h('div', {class: 'tile-label'}, label),
           h('div', {class: 'tile-value'}, value),
           sub ? h('div', {class: 'tile-sub'}, sub) : null, extra || null);
}

function section(title, ...children) {
  return h('section', {class: 'panel'}, h('h2', {}, title), ...children);
}

// A table; a heading starting with '#' is a number column ('#GPUs').
function table(head, rows, attrs) {
  return h('table', attrs || {},
           h('thead', {}, h('tr', {}, head.map((c) => c.startsWith('#') ?
             h('th', {class: 'num'}, c.slice(1)) : h('th', {}, c)))),
           h('tbody', {}, rows));
}

// ---------------------------------------------------------------------
// Cluster

function gpuCell(node, g, colors) {
  const down = UNAVAILABLE.includes(node.state) || !node.connected;
  const state = g.busy ? (g.job_state === 'SUSPENDED' ? 'suspended' : 'busy') :
      down ? 'unavailable' : 'idle';
  const tip = g.job_id !== null ?
      `${node.name} GPU ${g.index}${g.type ? ' (' + g.type + ')' : ''}: job ` +
      `${g.job_id}, ${g.user_name}, ${g.partition}, ${g.job_state}` :
      `${node.name} GPU ${g.index}: ${g.busy ? 'allocated' : state}`;
  const cell = h(g.job_id !== null ? 'a' : 'div', {
    class: `gpu gpu-${state}`, 'data-node': node.name, 'data-gpu': g.index,
    'data-state': state, 'data-job-id': g.job_id, 'data-partition': g.partition,
    href: g.job_id !== null ? `#/job/${g.job_id}` : null, title: tip,
  },
  h('span', {class: 'gpu-idx'}, `GPU ${g.index}`),
  h('span', {class: 'gpu-job'}, g.job_id !== null ? String(g.job_id) : g.busy ? '•' : ''),
  h('span', {class: 'gpu-user'}, g.user_name || ''));
  if (g.partition && colors[g.partition]) cell.style.setProperty('--c', colors[g.partition]);
  return cell;
}

function nodeCard(n, colors) {
  const memGiB = (m) => fmtNum(m / 1024, 1);
  return h('article', {class: 'node', 'data-node': n.name, 'data-state': n.state},
      h('header', {},
        h('b', {class: 'node-name'}, n.name), ' ', stateChip(n.state),
        h('span', {class: 'node-parts'}, (n.partitions || []).join(' · '))),
      n.reason ? h('div', {class: 'node-reason'}, n.reason) : null,
      h('div', {class: 'gpus'}, n.gpus.length ?
        n.gpus.map((g) => gpuCell(n, g, colors)) : h('span', {class: 'muted'}, 'no GPUs')),
      h('footer', {},
        h('span', {}, `GPUs ${n.gpus_busy}/${n.gpus_total}`),
        h('span', {}, `CPUs ${n.cpus_alloc}/${n.cpus}`),
        h('span', {}, `Mem ${memGiB(n.mem_alloc_mib)}/${memGiB(n.mem_mib)} GiB`)));
}

function partitionsTable(parts, colors) {
  const rows = parts.map((p) => h('tr', {'data-partition': p.name, 'data-state': p.state},
      h('td', {}, swatch(colors, p.name), ' ', h('b', {}, p.name), p.default ? h('span', {class: 'muted'}, ' (default)') : null),
      h('td', {class: 'num'}, p.priority_tier),
      h('td', {}, stateChip(p.state)),
      h('td', {}, p.nodes),
      h('td', {class: 'load'}, meter(p.gpus_total ? p.gpus_busy / p.gpus_total : 0),
        ` ${p.gpus_busy}/${p.gpus_total}`,
        h('span', {class: 'muted'}, ` (own ${p.gpus_alloc})`)),
      h('td', {class: 'num'}, `${p.cpus_alloc}/${p.total_cpus}`),
      h('td', {class: 'num'}, p.jobs_running + p.jobs_suspended),
      h('td', {class: 'num'}, p.jobs_pending,
        p.gpus_pending ? h('span', {class: 'muted'}, ` (${p.gpus_pending} GPUs)`) : null)));
  return table(['Partition', '#Tier', 'State', 'Nodes', 'GPUs busy', '#CPUs', '#Running', '#Pending'],
               rows, {class: 'grid partitions'});
}

function preemptBadge(j) {
  if (!j.preemptions) return null;
  return h('span', {class: 'badge preempted', 'data-preempted': j.preemptions,
                    title: `preempted ${j.preemptions}× (last by job ${j.last_preempted_by})`},
           `preempted ×${j.preemptions}`);
}

async function clusterView(ctx) {
  // /cluster brings the first pending jobs by priority and the counts:
  // the whole queue is the queue view's (10,000 jobs are not polled here)
  const c = await ctx.api('/cluster');
  keep.colors = partitionColors(c.partitions);
  const colors = keep.colors, t = c.totals;
  const pending = c.waiting;
  const preempted = t.jobs_pending_preempted;
  const legend = h('div', {class: 'legend'},
      c.partitions.map((p) => h('span', {}, swatch(colors, p.name), p.name)),
      h('span', {}, h('span', {class: 'swatch idle'}), 'idle'),
      h('span', {}, h('span', {class: 'swatch suspended'}), 'suspended'),
      h('span', {}, h('span', {class: 'swatch unavailable'}), 'unavailable'));
  const waiting = pending.map((j) => h('tr', {
    class: 'job', 'data-job-id': j.job_id, 'data-state': j.job_state,
    'data-reason': j.state_reason},
  h('td', {}, jobLink(j.job_id)), h('td', {}, j.user_name),
  h('td', {}, swatch(colors, j.partition), ' ', j.partition),
  h('td', {class: 'num'}, j.gpus), h('td', {}, j.state_reason, ' ', preemptBadge(j)),
  h('td', {}, fmtDuration(c.now - j.submit_time))));
  return h('div', {'data-view': 'cluster'},
      h('div', {class: 'tiles'},
        tile('GPUs busy', `${t.gpus_busy} / ${t.gpus_total}`, null,
             meter(t.gpus_total ? t.gpus_busy / t.gpus_total : 0)),
        tile('Running jobs', t.jobs_running, t.jobs_suspended ? `${t.jobs_suspended} suspended` : null),
        tile('Pending jobs', t.jobs_pending, preempted ? `${preempted} preempted, waiting again` : null),
        tile('Nodes available', `${t.nodes_available} / ${t.nodes}`)),
      section('Nodes and GPUs', legend,
              h('div', {class: 'nodes'}, c.nodes.map((n) => nodeCard(n, colors)))),
      section('Partitions', partitionsTable(c.partitions, colors)),
      section(`Waiting (${t.jobs_pending})`, pending.length ?
        table(['Job', 'User', 'Partition', '#GPUs', 'Reason', 'Waiting'], waiting,
              {class: 'grid waiting'}) :
        h('p', {class: 'muted'}, 'Nothing waits.'),
              t.jobs_pending > pending.length ? h('p', {}, h('a', {href: '#/queue'}, 'The whole queue →')) : null));
}

// ---------------------------------------------------------------------
// Explain

// What a node lacks for the job: "1 GPU, 4 CPUs, 2048 MiB".
function lacks(l) {
  const parts = [];
  if (l.gpus) parts.push(`${l.gpus} GPU${l.gpus > 1 ? 's' : ''}`);
  if (l.cpus) parts.push(`${l.cpus} CPU${l.cpus > 1 ? 's' : ''}`);
  if (l.mem_mib) parts.push(`${l.mem_mib} MiB`);
  return parts.join(', ');
}

// A job's GPUs: "GPU 0,1" on one node, "node01: 0,1; node02: 3" on several.
function gpuList(alloc) {
  const e = Object.entries(alloc || {});
  if (e.length === 1) return `GPU ${e[0][1].join(',')}`;
  return e.map(([n, ix]) => `${n}: ${ix.join(',')}`).join('; ');
}

function explainPanel(x, now) {
  const facts = [];
  const add = (k, v) => { if (v !== null && v !== undefined && v !== '') facts.push(h('dt', {}, k), h('dd', {}, v)); };
  add('State', h('span', {}, stateChip(x.job_state), ' ', x.state_reason || ''));
  add('Why', x.reason_detail);
  add('Held', x.held ? `by the ${x.held}` : null);
  add('Begins', x.begin_time ? fmtStamp(x.begin_time) : null);
  if (x.partition_limit) add('Partition limit', `${x.partition_limit.reason}`);
  if (x.limit) add('Limit', `${x.limit.reason}${x.limit.detail ? ': ' + x.limit.detail : ''}`);
  if (x.dependency) add('Dependency', `${x.dependency.expression} (${x.dependency.state})`);
  if (x.queue) add('Queue', `rank ${x.queue.rank}, ${x.queue.ahead_count} ahead` +
                   (x.queue.ahead && x.queue.ahead.length ? ': ' + x.queue.ahead.map((a) =>
                     `${a.job_id} (${a.user_name}, ${a.reason})`).join(', ') : ''));
  if (x.next_pass) add('Next pass', x.next_pass.would_start ?
    `would start on ${x.next_pass.node_list}` : `would wait: ${x.next_pass.reason}`);
  if ('estimated_start' in x) add('Estimated start', x.estimated_start ?
    `${fmtStamp(x.estimated_start)} (in ${fmtDuration(x.estimated_start - now)})` : 'unknown');
  if (x.preempting && x.preempting.length) add('Preempting', x.preempting.join(', '));
  if (x.node_list) add('Nodes', x.node_list);
  if (x.end_time_est) add('Ends about', fmtStamp(x.end_time_est));
  const nodes = (x.nodes || []).map((n) => h('tr', {'data-node': n.name, 'data-status': n.status},
      h('td', {}, n.name), h('td', {}, n.state), h('td', {}, n.status),
      h('td', {}, n.lacks ? lacks(n.lacks) : n.why || n.reason || ''),
      h('td', {}, n.until ? `${fmtTime(n.until, now)}${n.until_job ? ' (job ' + n.until_job + ' ends)' : ''}` :
        n.no_time_limit_job ? `job ${n.no_time_limit_job} has no time limit` : ''),
      h('td', {}, (n.jobs || []).join(', '))));
  const sugg = (x.suggestions || []).map((sg) => h('li', {'data-kind': sg.kind}, suggestion(sg, now)));
  return h('div', {class: 'explain', 'data-explain': x.job_id},
      h('dl', {class: 'facts'}, facts),
      nodes.length ? table(['Node', 'State', 'Status', 'Lacks / why', 'Free at', 'Jobs there'],
                           nodes, {class: 'grid compact'}) : null,
      sugg.length ? h('div', {}, h('h4', {}, 'What would help'), h('ul', {}, sugg)) : null,
      x.suggestions_complete === false ? h('p', {class: 'muted'}, 'Suggestions were cut short (time budget).') : null);
}

function suggestion(sg, now) {
  switch (sg.kind) {
  case 'time_limit':
    return `With a time limit of ${fmtLimit(sg.time_limit_s)} it would ` +
        (sg.would_start ? 'start now (backfill).' : 'still wait.');
  case 'partition':
    return `In partition ${sg.partition} it would start on ${sg.node_list}.`;
  case 'limit':
    return `Only the limit ${sg.reason} stands in the way.`;
  case 'resume_node':
    return `Resuming ${sg.node} (${sg.state}${sg.reason ? ': ' + sg.reason : ''}) would let it start.`;
  case 'release':
    return `Releasing its hold (held by the ${sg.by}) would let it start.`;
  default:
    return JSON.stringify(sg);
  }
}

// ---------------------------------------------------------------------
// Queue

function jobTimes(j, now) {
  if (j.job_state === 'PENDING')
    return h('span', {title: j.start_time ? `estimated start ${fmtStamp(j.start_time)}` : ''},
             `waiting ${fmtDuration(now - j.submit_time)}`);
  return `ran ${fmtDuration(now - (j.start_time || now))}`;
}

function queueRow(j, colors, now, onToggle) {
  const where = j.job_state === 'PENDING' ?
      h('span', {class: 'reason', title: j.state_description || ''}, j.state_reason) :
      h('span', {}, j.node_list || '', j.gpu_alloc ?
        h('span', {class: 'muted'}, ` · ${gpuList(j.gpu_alloc)}`) : null);
  const tr = h('tr', {class: `job${keep.open.has(j.job_id) ? ' open' : ''}`,
                      'data-job-id': j.job_id, 'data-state': j.job_state,
                      'data-reason': j.state_reason, 'data-partition': j.partition,
                      'data-preempted': j.preemptions || null, title: 'Click to explain'},
      h('td', {}, jobLink(j.job_id), j.array_task_str ? h('span', {class: 'muted'}, `_[${j.array_task_str}]`) : null),
      h('td', {class: 'name'}, j.name),
      h('td', {}, j.user_name),
      h('td', {}, swatch(colors, j.partition), ' ', j.partition),
      h('td', {}, stateChip(j.job_state)),
      h('td', {class: 'num'}, j.gpus),
      h('td', {class: 'num'}, j.priority),
      h('td', {}, jobTimes(j, now)),
      h('td', {}, where),
      h('td', {}, preemptBadge(j), j.hold ? h('span', {class: 'badge'}, 'held') : null,
        j.restart_count && !j.preemptions ? h('span', {class: 'badge'}, `requeued ×${j.restart_count}`) : null));
  tr.addEventListener('click', (ev) => {
    if (ev.target.closest('a')) return;
    onToggle(j.job_id);
  });
  return tr;
}

function matches(j, f) {
  if (keep.stateFilter !== 'all' && j.job_state !== keep.stateFilter) return false;
  if (!f) return true;
  return [j.job_id, j.name, j.user_name, j.partition, j.job_state, j.state_reason,
          j.account, j.qos, j.node_list].some((v) => v !== null && v !== undefined &&
          String(v).toLowerCase().includes(f));
}

const ORDER = {RUNNING: 0, COMPLETING: 0, SUSPENDED: 1, PENDING: 2};

function queueShell(ctx) {
  const input = h('input', {type: 'search', id: 'queue-filter', placeholder: 'Filter: user, partition, reason…',
                            value: keep.filter});
  const sel = h('select', {id: 'queue-state'},
      ['all', 'PENDING', 'RUNNING', 'SUSPENDED'].map((v) =>
        h('option', {value: v, selected: keep.stateFilter === v}, v === 'all' ? 'All states' : v)));
  const body = h('div', {id: 'queue-body'});
  input.addEventListener('input', () => { keep.filter = input.value; ctx.rerender(); });
  sel.addEventListener('change', () => { keep.stateFilter = sel.value; ctx.rerender(); });
  return h('div', {'data-view': 'queue'},
      h('div', {class: 'toolbar'}, h('h2', {}, 'Queue'), input, sel,
        h('span', {class: 'muted'}, 'Click a job for why it waits (explain).')),
      body);
}

async function toggleExplain(ctx, id) {
  if (keep.open.has(id)) {
    keep.open.delete(id);
  } else {
    keep.open.add(id);
    try {
      keep.explains.set(id, await ctx.api(`/jobs/${id}/explain`));
    } catch (e) {
      keep.explains.set(id, {error: e.message});
    }
  }
  ctx.rerender();
}

let lastQueue = null;

function drawQueue(ctx, q, colors) {
  const f = keep.filter.trim().toLowerCase();
  const jobs = q.jobs.filter((j) => matches(j, f)).sort((a, b) =>
      (ORDER[a.job_state] ?? 3) - (ORDER[b.job_state] ?? 3) ||
      (a.job_state === 'PENDING' ? b.priority - a.priority : 0) || a.job_id - b.job_id);
  const rows = [];
  for (const j of jobs) {
    rows.push(queueRow(j, colors, q.now, (id) => toggleExplain(ctx, id)));
    if (keep.open.has(j.job_id)) {
      const x = keep.explains.get(j.job_id);
      rows.push(h('tr', {class: 'explain-row', 'data-explain-for': j.job_id},
                  h('td', {colspan: 10}, !x ? 'Asking the scheduler…' : x.error ?
                    h('p', {class: 'bad'}, x.error) : explainPanel(x, q.now))));
    }
  }
  const counts = {};
  for (const j of q.jobs) counts[j.job_state] = (counts[j.job_state] || 0) + 1;
  const body = document.getElementById('queue-body');
  clear(body).append(
      h('p', {class: 'muted'}, Object.entries(counts).map(([k, v]) => `${v} ${k.toLowerCase()}`).join(' · ') ||
        'No job is queued or running.', f || keep.stateFilter !== 'all' ? ` — ${jobs.length} shown` : ''),
      table(['Job', 'Name', 'User', 'Partition', 'State', '#GPUs', '#Priority', 'Time', 'Reason / where', ''],
            rows, {class: 'grid queue'}));
}

async function queueView(ctx) {
  let shell = ctx.main.querySelector('[data-view="queue"]');
  const fresh = !shell;
  if (fresh) shell = queueShell(ctx);
  const [q, colors] = await Promise.all([ctx.api('/queue'), loadColors(ctx.api)]);
  lastQueue = q;
  ctx.rerender = () => drawQueue(ctx, lastQueue, keep.colors || {});
  if (fresh) clear(ctx.main).append(shell);
  drawQueue(ctx, q, colors);
  return {keepMain: true};
}

// ---------------------------------------------------------------------
// One job

function fact(k, v) {
  return [h('dt', {}, k), h('dd', {}, v === null || v === undefined || v === '' ? '-' : v)];
}

function jobFacts(j, now) {
  const gpus = j.gpu_alloc ? gpuList(j.gpu_alloc) : j.tres_per_node || 'none';
  const ran = j.start_time && j.job_state !== 'PENDING' ?
      fmtDuration((j.end_time || now) - j.start_time - (j.suspended_s || 0)) : null;
  return h('dl', {class: 'facts'},
      fact('User', `${j.user_name} (${j.user_id})`), fact('Account', j.account), fact('QOS', j.qos),
      fact('Partition', j.partition), fact('Priority', j.priority),
      fact('Reason', j.job_state === 'PENDING' ? j.state_reason : null),
      fact('Nodes', j.node_list), fact('GPUs', gpus), fact('CPUs', j.cpus),
      fact('Submitted', fmtStamp(j.submit_time)),
      fact(j.job_state === 'PENDING' ? 'Estimated start' : 'Started', fmtStamp(j.start_time)),
      fact('Ended', j.end_time ? fmtStamp(j.end_time) : null), fact('Run time', ran),
      fact('Time limit', fmtLimit(j.time_limit_s)), fact('Restarts', j.restart_count),
      fact(j.end_time ? 'Exit' : 'Last run\'s exit', j.exit_code && (j.end_time || j.restart_count) ?
        `${j.exit_code.return_code}:${j.exit_code.signal}` : null),
      fact('Work dir', j.work_dir));
}

function eventsTable(events) {
  return table(['Time', 'Event', 'Detail'], events.map((e) =>
    h('tr', {'data-event': e.event}, h('td', {}, fmtStamp(e.time)),
      h('td', {}, h('span', {class: `ev ev-${e.event}`}, e.event)), h('td', {}, e.detail || ''))),
  {class: 'grid compact events'});
}

function outputPanel(o) {
  if (!o) return null;
  if (o.error) return h('p', {class: 'bad', id: 'job-output', 'data-available': 'false'}, o.error);
  if (!o.available)
    return h('div', {id: 'job-output', 'data-available': 'false'},
             h('p', {class: 'muted'}, 'No output to show: ', o.reason));
  return h('div', {},
      h('p', {class: 'muted'}, o.path, ` · ${fmtNum(o.size / 1024, 1)} KiB`,
        o.truncated ? ` · the last ${fmtNum((o.size - o.offset) / 1024, 1)} KiB` : ''),
      h('pre', {class: 'output', id: 'job-output', 'data-available': 'true'}, o.text || '(empty)'));
}

async function jobView(ctx, id) {
  const d = await ctx.api(`/jobs/${id}`);
  const j = d.job, now = d.now;
  const colors = await loadColors(ctx.api);
  // the output is read again while the job runs; otherwise once per state
  let out = null;
  if (d.output_readable) {
    const k = keep.output;
    if (k && k.id === j.job_id && k.state === j.job_state && j.job_state !== 'RUNNING') {
      out = k.out;
    } else {
      try {
        out = await ctx.api(`/jobs/${id}/output`);
      } catch (e) {
        out = {error: e.message};
      }
      keep.output = {id: j.job_id, state: j.job_state, out};
    }
  }
  if (j.job_state === 'PENDING' && (!keep.jobExplain || keep.jobExplain.id !== j.job_id)) {
    try {
      keep.jobExplain = {id: j.job_id, x: await ctx.api(`/jobs/${id}/explain`)};
    } catch (e) {
      keep.jobExplain = {id: j.job_id, x: {error: e.message}};
    }
  }
  const preempts = d.events.filter((e) => e.event === 'preempt').length;
  const ex = keep.jobExplain && keep.jobExplain.id === j.job_id ? keep.jobExplain.x : null;
  const again = h('button', {type: 'button'}, 'Explain again');
  again.addEventListener('click', () => { keep.jobExplain = null; ctx.refresh(); });
  return h('div', {'data-view': 'job', 'data-job-id': j.job_id, 'data-state': j.job_state},
      h('div', {class: 'job-head'},
        h('h2', {}, `Job ${j.job_id}`, h('span', {class: 'job-name'}, j.name)), stateChip(j.job_state),
        preempts ? h('span', {class: 'badge preempted', 'data-preempted': preempts}, `preempted ×${preempts}`) : null,
        j.state_description ? h('span', {class: 'muted'}, j.state_description) : null),
      section('Timeline', timeline(d.events, j, now, colors[j.partition]),
              h('div', {class: 'legend'}, h('span', {}, h('span', {class: 'swatch ph-pending'}), 'pending'),
                h('span', {}, h('span', {class: 'swatch', style: {background: colors[j.partition] || '#1c7ed6'}}), 'running'),
                h('span', {}, h('span', {class: 'swatch suspended'}), 'suspended'),
                h('span', {}, h('span', {class: 'dot mk-preempt'}), 'preempted'),
                h('span', {}, h('span', {class: 'dot'}), 'other events'))),
      h('div', {class: 'cols'},
        section('Details', jobFacts(j, now)),
        section('Events', eventsTable(d.events))),
      ex ? section('Why it waits', ex.error ? h('p', {class: 'bad'}, ex.error) : explainPanel(ex, now), again) : null,
      d.output_readable ? section('Output', outputPanel(out)) :
        section('Output', h('p', {class: 'muted'}, 'Only the job\'s owner or an operator may read its output.')));
}

// ---------------------------------------------------------------------
// Preemptions

const WINDOWS = [[86400, 'last 24 hours'], [7 * 86400, 'last 7 days'],
                 [30 * 86400, 'last 30 days'], [0, 'all history']];

function reviewRows(groups) {
  return groups.filter((g) => g.preempted > 0 || g.gpu_hours_lost > 0)
      .sort((a, b) => b.gpu_hours_lost - a.gpu_hours_lost || b.preempted - a.preempted)
      .map((g) => ({name: g.name, value: g.gpu_hours_lost, flagged: g.flagged}));
}

function reviewTable(title, groups, flag) {
  return table([title, '#Runs', '#Preempted', '#Caused', '#Requeues', '#GPU-h lost', '#Median wait', '#Share'],
      groups.map((g) => h('tr', {'data-name': g.name, class: g.flagged ? 'flagged' : ''},
        h('td', {}, g.name, flag && g.flagged ? h('span', {class: 'badge preempted'}, 'flagged') : null),
        h('td', {class: 'num'}, g.runs), h('td', {class: 'num'}, g.preempted),
        h('td', {class: 'num'}, g.caused), h('td', {class: 'num'}, g.requeues),
        h('td', {class: 'num'}, fmtNum(g.gpu_hours_lost, 3)),
        h('td', {class: 'num'}, g.median_requeue_wait_s === null ? '-' : fmtDuration(g.median_requeue_wait_s)),
        h('td', {class: 'num'}, fmtPct(g.preempted_share)))),
      {class: 'grid compact review'});
}

async function preemptionsView(ctx) {
  const now = Math.floor(Date.now() / 1000);
  const start = keep.window ? now - keep.window : 0;
  const r = await ctx.api(`/preemptions?start=${start}`);
  const t = r.totals;
  const sel = h('select', {id: 'review-window'}, WINDOWS.map(([v, label]) =>
    h('option', {value: v, selected: keep.window === v}, label)));
  sel.addEventListener('change', () => { keep.window = Number(sel.value); ctx.refresh(); });
  return h('div', {'data-view': 'preemptions'},
      h('div', {class: 'toolbar'}, h('h2', {}, 'Preemptions'), sel,
        h('span', {class: 'muted'}, `${r.jobs} jobs · users preempted in more than ${fmtPct(r.share)} of their runs are flagged`)),
      h('div', {class: 'tiles'},
        tile('Preemptions', t.preempted, `${t.requeues} requeued`),
        tile('GPU-hours lost', fmtNum(t.gpu_hours_lost, t.gpu_hours_lost < 10 ? 3 : 1),
             'since each victim\'s last checkpoint'),
        tile('Runs preempted', fmtPct(t.preempted_share), `${t.runs} runs`),
        tile('Median wait to rerun', t.median_requeue_wait_s === null ? '-' : fmtDuration(t.median_requeue_wait_s))),
      h('div', {class: 'cols'},
        section('GPU-hours lost by user', barChart(reviewRows(r.users), {chart: 'users'})),
        section('GPU-hours lost by QOS', barChart(reviewRows(r.qos), {chart: 'qos'}))),
      section('GPU-hours lost by partition', barChart(reviewRows(r.partitions), {chart: 'partitions'})),
      section('By user', reviewTable('User', r.users, true)),
      h('div', {class: 'cols'},
        section('By QOS', reviewTable('QOS', r.qos, false)),
        section('By partition', reviewTable('Partition', r.partitions, false))),
      r.truncated ? h('p', {class: 'bad'}, 'The window holds more jobs than one review reads: the figures cover the first 50,000.') : null);
}

// ---------------------------------------------------------------------
// Fair-share

async function fairshareView(ctx) {
  const f = await ctx.api('/fairshare');
  const rows = f.shares.map((a) => h('tr', {'data-account': a.account, 'data-user': a.user || null,
                                            class: a.user ? 'user' : 'account'},
      h('td', {class: 'tree'}, h('span', {class: 'indent', style: {width: `${a.depth * 16}px`}}),
        a.user ? a.user : h('b', {}, a.account)),
      h('td', {}, a.user ? a.account : ''),
      h('td', {class: 'num'}, a.raw_shares === null ? '-' : a.raw_shares),
      h('td', {class: 'num'}, fmtNum(a.norm_shares, 3)),
      h('td', {class: 'num'}, fmtNum(a.raw_usage, 0)),
      h('td', {class: 'num'}, fmtNum(a.effective_usage, 3)),
      h('td', {class: 'fs'}, a.fairshare === null ? '' : [meter(a.fairshare, 'fs-meter'), ' ', fmtNum(a.fairshare, 3)]),
      h('td', {class: 'num'}, a.level_fs === null ? '' : fmtNum(a.level_fs, 3))));
  const qos = (f.qos || []).map((q) => h('tr', {'data-qos': q.name},
      h('td', {}, q.name, q.no_decay ? h('span', {class: 'badge'}, 'NoDecay') : null),
      h('td', {class: 'num'}, fmtNum(q.raw_usage, 0))));
  return h('div', {'data-view': 'fairshare'},
      h('div', {class: 'toolbar'}, h('h2', {}, 'Fair-share'),
        h('span', {class: 'muted'}, `${f.algorithm} · usage half-life ${fmtDuration(f.half_life_s)} · computed ${fmtTime(f.last_calc)}`)),
      section('Associations', table(['Account / user', 'Account', '#Raw shares', '#Norm shares', '#Raw usage',
                                     '#Effective usage', 'Fair-share', '#Level FS'], rows, {class: 'grid fairshare'}),
              h('p', {class: 'muted'}, 'Raw usage: decayed billed TRES-seconds. Fair-share: the factor priority weighs (1 = has used nothing of its share).')),
      qos.length ? section('QOS usage', table(['QOS', '#Raw usage'], qos, {class: 'grid compact narrow'})) : null,
      (f.notes || []).length ? section('Notes', h('ul', {}, f.notes.map((n) => h('li', {}, n)))) : null);
}

// ---------------------------------------------------------------------

const VIEWS = {cluster: clusterView, queue: queueView, job: jobView,
               preemptions: preemptionsView, fairshare: fairshareView};

// Draw view into ctx.main; its note for the status line, if any.
export async function render(view, arg, ctx) {
  ctx.refresh = () => window.dispatchEvent(new HashChangeEvent('hashchange'));
  ctx.rerender = () => {};
  const out = await VIEWS[view](ctx, arg);
  if (out instanceof Node) {
    const y = window.scrollY;
    clear(ctx.main).append(out);
    window.scrollTo(0, y);
    return null;
  }
  return out;
}
