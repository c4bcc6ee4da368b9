// Sluice's dashboard: logs in with a token (scontrol token), routes by the
// address's #fragment, and polls the controller's /sluice/v1 API while a
// view is shown.  No data is in the page itself: every value comes from
// the API with the user's token, so the user sees what the CLI shows them.

import {clear, fmtTime, h} from './dom.js';
import * as views from './views.js';

const TOKEN_KEY = 'sluice.token';
const API = '/sluice/v1';

// How often each view asks again (milliseconds).
const POLL_MS = {cluster: 3000, queue: 3000, job: 3000, preemptions: 15000,
                 fairshare: 10000};

const main = document.getElementById('main');
const statusLine = document.getElementById('status');
let token = null;
let who = null;
let timer = null;
let generation = 0; // a render of an old route must not land

// The token from "SLURM_JWT=...", "export SLURM_JWT=...", or bare.
export function parseToken(text) {
  const t = String(text || '').trim();
  const m = t.match(/SLURM_JWT=(\S+)/);
  const v = (m ? m[1] : t).replace(/^["']|["']$/g, '');
  return /^[A-Za-z0-9_\-.]+$/.test(v) ? v : null;
}

class ApiError extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

// GET an API path as the logged-in user; the JSON, or an ApiError.
async function api(path) {
  const r = await fetch(API + path, {
    headers: {'Authorization': `Bearer ${token}`},
    cache: 'no-store',
  });
  let body = null;
  try {
    body = await r.json();
  } catch (e) {
    body = null;
  }
  if (!r.ok) {
    const msg = body && body.errors && body.errors[0] ?
        body.errors[0].error : `HTTP ${r.status}`;
    throw new ApiError(r.status, msg);
  }
  return body;
}

// The route of the address: {view, arg}.
function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  const view = parts[0] || 'cluster';
  if (view === 'job' && /^\d+$/.test(parts[1] || ''))
    return {view, arg: parts[1]};
  if (['cluster', 'queue', 'preemptions', 'fairshare'].includes(view))
    return {view, arg: null};
  return {view: 'cluster', arg: null};
}

function setStatus(text, bad) {
  statusLine.textContent = text;
  statusLine.classList.toggle('bad', !!bad);
  document.body.toggleAttribute('data-error', !!bad);
}

function markNav(view) {
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.view === view);
  }
}

function logout(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  token = null;
  who = null;
  if (timer) clearTimeout(timer);
  showLogin(message);
}

// One render of the current route, then the next one after its interval.
async function refresh() {
  const gen = generation;
  const r = route();
  if (timer) clearTimeout(timer);
  markNav(r.view);
  try {
    const view = await views.render(r.view, r.arg, {api, who, main});
    if (gen !== generation) return;
    document.body.dataset.ready = r.view;
    document.body.dataset.route = r.arg ? `${r.view}/${r.arg}` : r.view;
    setStatus(`Updated ${fmtTime(Date.now() / 1000)} · every ` +
              `${POLL_MS[r.view] / 1000} s${view && view.note ? ' · ' + view.note : ''}`);
  } catch (e) {
    if (gen !== generation) return;
    if (e instanceof ApiError && e.status === 401) {
      logout(`The controller refused the token (${e.message}): log in again.`);
      return;
    }
    setStatus(`Could not update: ${e.message} (retrying)`, true);
  }
  if (gen === generation && !document.hidden)
    timer = setTimeout(refresh, POLL_MS[r.view] || 5000);
}

function go() {
  generation++;
  if (!token) return;
  delete document.body.dataset.ready;
  refresh();
}

function showLogin(message) {
  document.body.classList.add('logged-out');
  document.getElementById('who').textContent = '';
  const box = h('textarea', {id: 'token-input', rows: 4, spellcheck: 'false',
                             placeholder: 'SLURM_JWT=eyJhbGciOi...'});
  const err = h('p', {class: 'login-error', role: 'alert'}, message || '');
  const form = h('form', {class: 'login', id: 'login'},
      h('h1', {}, 'Log in to Sluice'),
      h('p', {}, 'Paste the output of ', h('code', {}, 'scontrol token'),
        ' (run it on a machine of the cluster). The token stays in this ' +
        'tab only and is sent to this controller alone.'),
      box, err,
      h('button', {type: 'submit', class: 'primary'}, 'Log in'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const t = parseToken(box.value);
    if (!t) {
      err.textContent = 'That does not look like a token (SLURM_JWT=...).';
      return;
    }
    await login(t, (m) => { err.textContent = m; });
  });
  clear(main).append(form);
  setStatus('Not logged in');
  document.body.dataset.ready = 'login';
  box.focus();
}

// Check the token with whoami; keep it for this tab when it works.
async function login(t, fail) {
  token = t;
  try {
    who = await api('/whoami');
  } catch (e) {
    token = null;
    fail(e instanceof ApiError && e.status === 401 ?
        `The controller refused this token: ${e.message}` :
        `The controller could not be reached: ${e.message}`);
    return false;
  }
  sessionStorage.setItem(TOKEN_KEY, t);
  document.body.classList.remove('logged-out');
  document.getElementById('cluster-name').textContent = who.cluster;
  document.getElementById('who').textContent =
      who.user + (who.administrator ? ' · admin' : who.operator ? ' · operator' : '');
  document.title = `Sluice · ${who.cluster}`;
  go();
  return true;
}

// #token=... (and &view=/job/5) logs in, then leaves the address bar.
function tokenFromAddress() {
  const m = location.hash.match(/^#token=([^&]*)(?:&view=(.*))?$/);
  if (!m) return null;
  const view = m[2] ? decodeURIComponent(m[2]) : '/cluster';
  history.replaceState(null, '', location.pathname + location.search +
                       '#' + view.replace(/^#?\/?/, '/'));
  return parseToken(decodeURIComponent(m[1]));
}

function start() {
  document.getElementById('logout').addEventListener('click', () =>
      logout('Logged out.'));
  document.getElementById('jobsearch').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const v = ev.target.elements.job.value.trim();
    if (/^\d+$/.test(v)) location.hash = `#/job/${v}`;
  });
  window.addEventListener('hashchange', () => {
    if (/^#token=/.test(location.hash)) {
      const t = tokenFromAddress();
      if (t) login(t, (m) => showLogin(m));
      return;
    }
    go();
  });
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && token) go();
  });
  const t = tokenFromAddress() || sessionStorage.getItem(TOKEN_KEY);
  if (t) login(t, (m) => logout(m));
  else showLogin();
}

start();
