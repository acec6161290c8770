// Drives rotarestd's dashboard in headless Chromium and checks what each page
// shows against what the test found with squeue, sinfo and the job itself
// (ROTA_EXPECT). Cancels a job from its page. Saves a screenshot of each page
// in ROTA_SCREENSHOTS. Exit 0 when every check held; the failures on stderr.
import puppeteer from 'puppeteer-core';

const url = process.env.ROTA_REST_URL;
const expect = JSON.parse(process.env.ROTA_EXPECT);
const shots = process.env.ROTA_SCREENSHOTS;
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
  // The page reloads its data every 500 ms in the test.
  await page.goto(`${url}/?refresh=500`, { waitUntil: 'networkidle0' });
  check(await page.$eval('#login', (f) => !f.hidden), 'without a token the page asks for one');
  await page.type('#login-user', expect.user);
  await page.type('#login-token', process.env.ROTA_TOKEN);
  await page.click('#login-submit');
  const loaded = async (n = 1) => {
    const start = await page.evaluate(() => Number(document.body.dataset.loaded || 0));
    await page.waitForFunction((s, k) => Number(document.body.dataset.loaded || 0) >= s + k,
                               { timeout: 15000 }, start, n);
  };

  // The cluster: every node of sinfo, its GPU cells, the drained node's reason.
  await page.waitForSelector('.node');
  const nodes = await page.$$eval('.node', (els) => els.map((e) => ({
    name: e.dataset.node,
    state: e.querySelector('.node-state').textContent,
    reason: e.querySelector('.node-reason')?.textContent ?? '',
    gpus: [...e.querySelectorAll('.gpu')].map((g) => ({ index: Number(g.dataset.index),
                                                       state: g.dataset.state, job: g.dataset.job })),
  })));
  check(JSON.stringify(nodes.map((n) => n.name).sort()) === JSON.stringify(expect.nodes.sort()),
        `nodes shown ${nodes.map((n) => n.name)} are sinfo's ${expect.nodes}`);
  const running = nodes.find((n) => n.name === expect.running_node);
  for (const index of expect.running_gpus) {
    const cell = running?.gpus.find((g) => g.index === index);
    check(cell?.state === 'allocated' && cell?.job === String(expect.running_job),
          `GPU ${index} of ${expect.running_node} is held by job ${expect.running_job}`);
  }
  check(running?.gpus.filter((g) => g.state === 'allocated').length === expect.running_gpus.length,
        `only the job's GPUs are allocated on ${expect.running_node}`);
  const drained = nodes.find((n) => n.name === expect.drained_node);
  check(drained?.reason === expect.drained_reason, `drained node shows its reason "${drained?.reason}"`);
  check(drained?.gpus.length > 0 && drained.gpus.every((g) => g.state === 'down'),
        'the drained node\'s GPUs are down cells');
  check(drained?.state.includes('drain'), `the drained node's state says drain: ${drained?.state}`);
  await page.screenshot({ path: `${shots}/cluster.png`, fullPage: true });

  // The queue: the held job with its reason in words, the running job's GPUs.
  await page.goto(`${url}/?refresh=500#/queue`);
  await page.waitForSelector('#pending');
  const pending = await page.$$eval('#pending tr[data-job]', (rows) => rows.map((r) => ({
    job: r.dataset.job, reason: r.querySelector('.reason').textContent,
    factors: r.querySelector('.factors').textContent,
  })));
  const held = pending.find((p) => p.job === String(expect.held_job));
  check(held && held.reason.startsWith(expect.held_reason) && held.reason.includes('held by its user'),
        `held job ${expect.held_job} shows ${expect.held_reason} in words: ${held?.reason}`);
  const runningRows = await page.$$eval('#running tr[data-job]', (rows) => rows.map((r) => ({
    job: r.dataset.job, gpus: r.querySelector('.job-gpus').textContent })));
  const row = runningRows.find((r) => r.job === String(expect.running_job));
  check(row && row.gpus === `${expect.running_node}: GPU ${expect.running_gpu_ids}`,
        `running job's GPUs read "${row?.gpus}"`);
  check(pending.length + runningRows.length === expect.queue_length,
        `the queue lists ${pending.length + runningRows.length} jobs, squeue ${expect.queue_length}`);
  await page.screenshot({ path: `${shots}/queue.png`, fullPage: true });

  // The scheduler: plotted from samples the page collected.
  await page.goto(`${url}/?refresh=500#/scheduler`);
  await page.waitForSelector('#cycle-plot');
  await loaded(3);
  const points = await page.$eval('#queue-plot polyline', (p) => p.getAttribute('points').split(' ').length);
  check(points >= 3, `the queue depth plot has ${points} points`);
  await page.screenshot({ path: `${shots}/scheduler.png`, fullPage: true });

  // A job: its allocation and files, and its owner's cancel button.
  await page.goto(`${url}/?refresh=500#/job/${expect.running_job}`);
  await page.waitForSelector('#job-detail');
  const field = (name) => page.$eval(`#job-detail [data-field="${name}"]`, (e) => e.textContent);
  check((await field('allocation')).includes(`GPUs ${expect.running_gpu_ids}`),
        `the job page shows GPU indices ${expect.running_gpu_ids}: ${await field('allocation')}`);
  check((await field('stdout')) === expect.running_stdout, `stdout path ${await field('stdout')}`);
  await page.screenshot({ path: `${shots}/job.png`, fullPage: true });
  await page.click('#cancel-job');
  // The footer answers the action with "job N: cancel sent" or the refusal.
  await page.waitForFunction((id) => document.querySelector('#status').textContent
    .startsWith(`job ${id}:`), { timeout: 15000 }, expect.running_job);
  const answer = await page.$eval('#status', (e) => e.textContent);
  check(answer === `job ${expect.running_job}: cancel sent`, `the job page answers: ${answer}`);
} catch (e) {
  failures.push(`error: ${e.stack || e}`);
} finally {
  await browser.close();
}
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
