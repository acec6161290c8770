// Rota dashboard: plain JavaScript (no framework, no build step). Every view
// is drawn from GET /rota/v1/dashboard, read with the signed-in user's token;
// actions go through slurmrestd's own job routes.
const REFRESH_MS = Number(new URLSearchParams(location.search).get('refresh') || 5000);
const HISTORY_KEY = 'rota-scheduler-history';
let data = null;
let timer = null;

const $ = (sel) => document.querySelector(sel);
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children.flat()) e.append(c instanceof Node ? c : String(c ?? ''));
  return e;
}

function credentials() {
  return { user: sessionStorage.getItem('rota-user'), token: sessionStorage.getItem('rota-token') };
}
async function api(method, path, body) {
  const { user, token } = credentials();
  const res = await fetch(path, {
    method,
    headers: { 'X-SLURM-USER-NAME': user, 'X-SLURM-USER-TOKEN': token,
               ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok || (json.errors && json.errors.length)) {
    const msg = (json.errors && json.errors[0] && json.errors[0].error) || res.statusText;
    throw new Error(msg);
  }
  return json;
}

function when(t) {
  if (!t) return '';
  return new Date(t * 1000).toLocaleString();
}
// What the user did last stays in the footer for a while: the periodic refresh
// (every half second at its fastest) would otherwise replace "cancel sent" or a
// refusal before anyone could read it.
const ACTION_SHOWN_MS = 10000;
let actionShownUntil = 0;
function status(text, error = false, action = false) {
  if (!action && !error && Date.now() < actionShownUntil) return;
  if (action) actionShownUntil = Date.now() + ACTION_SHOWN_MS;
  const s = $('#status');
  s.textContent = text;
  s.className = error ? 'error' : '';
}
function mine(job) { return job.user_name === data.user; }

// ---- views -----------------------------------------------------------------

function clusterView() {
  const legend = el('p', { class: 'legend' },
    ['idle', 'allocated', 'reserved', 'down'].map((s) =>
      el('span', {}, el('i', { class: 'gpu', 'data-state': s }), s)));
  const nodes = data.nodes.map((n) => {
    const gpus = n.gpu_cells.map((g) => el('div', {
      class: 'gpu', title: g.job_id ? `job ${g.job_id} (${g.user})` : g.state,
      dataset: { index: g.index, state: g.state, job: g.job_id ?? '' },
    }, `${g.index}${g.type ? ' ' + g.type : ''}`, el('br'), g.job_id ? `#${g.job_id}` : ''));
    return el('div', { class: 'node', dataset: { node: n.name } },
      el('span', { class: 'node-state' }, [n.state, ...n.state_flags].join('+').toLowerCase()),
      el('div', { class: 'name' }, n.name),
      el('div', {}, `${n.alloc_cpus}/${n.cpus} CPUs, ${n.alloc_memory}/${n.real_memory} MB`),
      n.reason ? el('div', { class: 'node-reason' }, n.reason) : '',
      el('div', { class: 'gpus' }, gpus));
  });
  return [el('h2', {}, `Nodes (${data.nodes.length})`), legend, el('div', { class: 'nodes' }, nodes)];
}

// GPU efficiency: the idle flag rotad raised (GpuIdlePolicy), with what follows.
function gpuUse(j) {
  if (!j.gpu_idle_since) return '';
  let text = `idle since ${when(j.gpu_idle_since)} (${Math.round(j.gpu_idle_util)}% use)`;
  if (j.gpu_idle_action_at) text += `; acted on at ${when(j.gpu_idle_action_at)}`;
  return el('span', { class: 'error' }, text);
}

function queueView() {
  const all = $('#view').dataset.all === '1';
  const jobs = data.jobs.filter((j) => all || mine(j));
  const toggle = el('label', {}, el('input', {
    type: 'checkbox', id: 'show-all', ...(all ? { checked: '' } : {}),
    onchange: (e) => { $('#view').dataset.all = e.target.checked ? '1' : '0'; render(); },
  }), ' everyone\'s jobs (operators see all; others see what PrivateData allows)');
  const link = (j) => el('a', { href: `#/job/${j.job_id}` }, j.job_id);
  const factors = (f) => f ? Object.entries(f).filter(([, v]) => v && v !== '')
    .map(([k, v]) => `${k} ${typeof v === 'number' ? Math.round(v) : v}`).join(', ') : '';
  const pending = jobs.filter((j) => j.job_state === 'PENDING').map((j) =>
    el('tr', { dataset: { job: j.job_id } },
      el('td', {}, link(j)), el('td', {}, j.name), el('td', {}, j.user_name),
      el('td', {}, j.partition), el('td', {}, j.priority),
      el('td', { class: 'reason' }, j.state_reason, el('small', {}, j.reason_text)),
      el('td', { class: 'planned' }, j.planned_start ? `${when(j.planned_start)} on ${j.planned_nodes}` : ''),
      el('td', { class: 'factors' }, factors(j.priority_factors))));
  const running = jobs.filter((j) => j.job_state !== 'PENDING').map((j) =>
    el('tr', { dataset: { job: j.job_id } },
      el('td', {}, link(j)), el('td', {}, j.name), el('td', {}, j.user_name),
      el('td', {}, j.job_state), el('td', {}, j.nodes), el('td', {}, j.time_used),
      el('td', { class: 'job-gpus' }, j.allocation.filter((a) => a.gpu_ids)
        .map((a) => `${a.node}: GPU ${a.gpu_ids}`).join('; ')),
      el('td', { class: 'gpu-use' }, gpuUse(j))));
  const head = (...names) => el('tr', {}, names.map((n) => el('th', {}, n)));
  return [toggle,
    el('h2', {}, `Pending (${pending.length})`),
    el('table', { id: 'pending' }, head('Job', 'Name', 'User', 'Partition', 'Priority', 'Why waiting',
      'Planned start', 'Priority factors'), pending),
    el('h2', {}, `Running (${running.length})`),
    el('table', { id: 'running' }, head('Job', 'Name', 'User', 'State', 'Nodes', 'Time', 'GPUs',
      'GPU use'),
      running)];
}

async function jobAction(job, action) {
  try {
    if (action === 'cancel') await api('DELETE', `/slurm/v0.0.38/job/${job.job_id}`);
    else await api('POST', `/slurm/v0.0.38/job/${job.job_id}`, { hold: action === 'hold' });
    await refresh();
    status(`job ${job.job_id}: ${action} sent`, false, true);
  } catch (e) {
    status(`job ${job.job_id}: ${e.message}`, true, true);
  }
}

function jobView(id) {
  const job = data.jobs.find((j) => String(j.job_id) === id);
  if (!job) return [el('p', { id: 'job-missing' }, `Job ${id} is not in the queue (finished jobs are in accounting: sacct).`)];
  const row = (name, value) => [el('dt', {}, name), el('dd', { dataset: { field: name } }, value)];
  const history = [['submitted', job.submit_time], ['eligible', job.eligible_time],
    ['started', job.start_time], ['ends', job.end_time]].filter(([, t]) => t)
    .map(([what, t]) => `${what} ${when(t)}`).join(' · ');
  const buttons = [];
  if (mine(job) || data.user === 'root') {
    if (job.job_state === 'PENDING' && job.state_reason !== 'JobHeldUser') {
      buttons.push(el('button', { id: 'hold-job', onclick: () => jobAction(job, 'hold') }, 'Hold'));
    }
    if (job.state_reason === 'JobHeldUser' || job.state_reason === 'JobHeldAdmin') {
      buttons.push(el('button', { id: 'release-job', onclick: () => jobAction(job, 'release') }, 'Release'));
    }
    buttons.push(el('button', { id: 'cancel-job', onclick: () => jobAction(job, 'cancel') }, 'Cancel'));
  }
  return [el('h2', {}, `Job ${job.job_id}: ${job.name}`),
    el('dl', { class: 'job', id: 'job-detail' },
      row('state', job.job_state), row('reason', job.state_reason ? `${job.state_reason}: ${job.reason_text}` : ''),
      row('user', job.user_name), row('partition', job.partition),
      row('nodes', job.nodes), row('GPU use', gpuUse(job) || 'not flagged idle'), row('allocation', job.allocation.map((a) =>
        `${a.node}: CPUs ${a.cpu_ids}${a.gpu_ids ? ', GPUs ' + a.gpu_ids : ''}, ${a.memory} MB`).join('; ')),
      row('history', history), row('stdout', job.standard_output), row('stderr', job.standard_error),
      row('work dir', job.current_working_directory)),
    el('p', {}, buttons)];
}

function plot(id, title, points, key, colour) {
  const w = 640, h = 160, pad = 30;
  const values = points.map((p) => p[key]);
  const max = Math.max(1, ...values);
  const xs = (i) => pad + (points.length < 2 ? 0 : (i * (w - 2 * pad)) / (points.length - 1));
  const ys = (v) => h - pad - (v * (h - 2 * pad)) / max;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('id', id);
  svg.setAttribute('class', 'plot');
  svg.setAttribute('width', w);
  svg.setAttribute('height', h);
  const line = document.createElementNS(svg.namespaceURI, 'polyline');
  line.setAttribute('points', values.map((v, i) => `${xs(i)},${ys(v)}`).join(' '));
  line.setAttribute('stroke', colour);
  svg.append(line);
  const label = document.createElementNS(svg.namespaceURI, 'text');
  label.setAttribute('x', pad);
  label.setAttribute('y', 16);
  label.textContent = `${title} (max ${Math.max(0, ...values)})`;
  svg.append(label);
  return svg;
}

function schedulerView() {
  const history = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || '[]');
  const s = data.scheduler;
  return [el('h2', {}, 'Scheduler'),
    el('p', { id: 'scheduler-now' }, `main cycle ${s.main_cycle_last_us} µs (mean ${s.main_cycle_mean_us}), ` +
      `backfill cycle ${s.backfill_cycle_last_us} µs, queue ${s.queue_length}, ` +
      `${s.jobs_pending} pending, ${s.jobs_running} running; ${history.length} samples since this page opened`),
    plot('cycle-plot', 'main cycle (µs)', history, 'main_cycle_last_us', '#3f7fd1'),
    plot('backfill-plot', 'backfill cycle (µs)', history, 'backfill_cycle_last_us', '#7a4fd1'),
    plot('queue-plot', 'queue depth (jobs)', history, 'queue_length', '#d17a3f')];
}

// ---- frame -----------------------------------------------------------------

function render() {
  if (!data) return;
  const route = location.hash || '#/cluster';
  document.querySelectorAll('nav a').forEach((a) =>
    a.classList.toggle('active', route.startsWith(a.getAttribute('href'))));
  const view = $('#view');
  let content;
  if (route.startsWith('#/queue')) content = queueView();
  else if (route.startsWith('#/job/')) content = jobView(route.slice(6));
  else if (route.startsWith('#/scheduler')) content = schedulerView();
  else content = clusterView();
  view.replaceChildren(...content);
  document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
}

async function refresh() {
  try {
    data = await api('GET', '/rota/v1/dashboard');
    const history = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || '[]');
    history.push(data.scheduler);
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(history.slice(-360)));
    $('#cluster-name').textContent = data.cluster;
    $('#who').textContent = data.user;
    status(`updated ${new Date().toLocaleTimeString()}`);
    render();
  } catch (e) {
    status(e.message, true);
    if (/token|authentication|belongs|expired/i.test(e.message)) signOut();
  }
}

function signOut() {
  sessionStorage.removeItem('rota-token');
  clearInterval(timer);
  data = null;
  $('#view').replaceChildren();
  $('#login').hidden = false;
  $('#logout').hidden = true;
}

function start() {
  $('#login').hidden = true;
  $('#logout').hidden = false;
  refresh();
  clearInterval(timer);
  timer = setInterval(refresh, REFRESH_MS);
}

$('#login').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem('rota-user', $('#login-user').value.trim());
  sessionStorage.setItem('rota-token', $('#login-token').value.trim());
  start();
});
$('#logout').addEventListener('click', signOut);
window.addEventListener('hashchange', render);
if (credentials().token) start(); else signOut();
