'use strict';
// shutdownlab's Node target: the target protocol (see targetapp/doc.go, the
// Go target, for the reference) on node core (http, fs), plus the ws library
// for the /events WebSocket stream (events.js), shutting down in the mode
// MODE declares:
//
//   none   no SIGTERM/SIGINT handler at all. A child process dies from the
//          signal; as PID 1 in a container without --init the kernel drops
//          it and Node keeps running (published P1).
//   close  on SIGTERM/SIGINT: server.close() only (Node sweeps idle sockets
//          once, no readiness flip, no Connection: close, no deadline, the
//          job is not awaited); exit 0 when close's callback fires.
//   full   the five steps: /readyz 503; serve PRESTOP_MS more; stop
//          accepting; Connection: close on every response and
//          closeIdleConnections() every SWEEP_MS; wait for in-flight
//          requests, open sockets and the job, then exit 0 ("drained"). When
//          DRAIN_MS > 0 passes first (counted from the signal): "deadline",
//          exit 1. Later signals are logged and ignored. /events upgrades
//          are refused from the first step; from step 3 every stream gets
//          its close frame 1001 inside CLOSE_SPREAD_MS (events.js).
//
// Lifecycle events: one JSON object per line on stdout, the Go target's
// schema ({"ts_ns":<unix ns>,"event":...}), written with fs.writeSync so no
// line is lost on exit. Bad environment: a message on stderr, exit 2.
//
// Required as a module (cluster.js does), it only defines: nothing is
// opened, no handler installed, nothing listens, ws is not loaded;
// module.exports lists what it shares.
const http = require('http');
const fs = require('fs');
const path = require('path');
const events = require('./events.js');

const MAX_MS = 24 * 60 * 60 * 1000;
const MAX_STEPS = 100000;
const isMain = require.main === module;

// ---- clock and log --------------------------------------------------------

// Wall-clock anchor (sub-ms) plus the monotonic clock: ns-resolution stamps.
const wallBase = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n -
  process.hrtime.bigint();
const nowNs = () => wallBase + process.hrtime.bigint();
const msSince = (ns) => Number((nowNs() - ns) / 1000n) / 1000; // µs precision

function writeAll(fd, s) {
  let buf = Buffer.from(s);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(fs.writeSync(fd, buf));
    } catch (e) {
      if (e.code !== 'EAGAIN') return; // nowhere else to report it
    }
  }
}

// log writes one event; fields in the Go target's order: event, mode, signal,
// ms, inflight, job_step, job_steps, code, worker, pid, conn, conns, msg.
function log(ev, ts) {
  const o = { event: ev.event };
  for (const k of ['mode', 'signal', 'ms', 'inflight', 'job_step', 'job_steps', 'code', 'worker', 'pid', 'conn',
    'conns', 'msg']) {
    if (ev[k] !== undefined && ev[k] !== '') o[k] = ev[k];
  }
  writeAll(1, '{"ts_ns":' + (ts === undefined ? nowNs() : ts).toString() + ',' +
    JSON.stringify(o).slice(1) + '\n');
}

// ---- configuration --------------------------------------------------------

function parseConfig(env) {
  const c = { mode: 'full', host: env.LISTEN_HOST || '', port: 8080, drainMs: 0, prestopMs: 0,
    keepaliveMs: 5000, sweepMs: 100, dataDir: env.DATA_DIR || '/data' };
  const errs = [];
  const bad = (name, v, reason) => errs.push(`invalid ${name}=${JSON.stringify(v)}: ${reason}`);
  const int = (v, min, max) => (/^[+-]?[0-9]+$/.test(v) && +v >= min && +v <= max ? +v : null);
  if (env.MODE) {
    if (['none', 'close', 'full'].includes(env.MODE)) c.mode = env.MODE;
    else bad('MODE', env.MODE, 'must be none, close or full');
  }
  if (env.PORT) {
    const n = int(env.PORT, 0, 65535);
    if (n === null) bad('PORT', env.PORT, 'must be an integer in 0..65535');
    else c.port = n;
  }
  for (const [name, key, min] of [['DRAIN_MS', 'drainMs', 0], ['PRESTOP_MS', 'prestopMs', 0],
    ['KEEPALIVE_MS', 'keepaliveMs', 0], ['SWEEP_MS', 'sweepMs', 1]]) {
    const v = env[name];
    if (!v) continue;
    const n = int(v, min, MAX_MS);
    if (n === null) bad(name, v, `must be an integer number of milliseconds in ${min}..${MAX_MS}`);
    else c[key] = n;
  }
  events.parseWSConfig(env, c, bad, int, MAX_MS);
  return { cfg: c, errs };
}

const { cfg, errs } = parseConfig(process.env);
if (isMain && errs.length > 0) {
  for (const e of errs) writeAll(2, `target: ${e}\n`);
  process.exit(2);
}

let ledgerFd;
let hub = null; // the /events streams (events.Hub); the main program only
if (isMain) {
  try {
    fs.mkdirSync(cfg.dataDir, { recursive: true });
    ledgerFd = fs.openSync(path.join(cfg.dataDir, 'ledger.log'), 'a', 0o644);
  } catch (e) {
    writeAll(2, `target: DATA_DIR=${JSON.stringify(cfg.dataDir)}: ${e.message}\n`);
    process.exit(2);
  }
}

// ---- state ----------------------------------------------------------------

let ready = true; // /readyz 200
let inflight = 0; // /slow and /write being served
let closeOnResponse = false; // full mode, from step 3: Connection: close
let draining = false; // full mode, from step 3: check() may exit
let shuttingDown = false; // a signal was handled
let signalNs = 0n;
const conns = new Set();
const job = { running: false, step: 0, steps: 0 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// appendSync appends line + "\n" to fd and fsyncs it (async I/O).
function appendSync(fd, line) {
  return new Promise((resolve, reject) => {
    fs.write(fd, line + '\n', null, 'utf8', (err) => {
      if (err) return reject(err);
      fs.fsync(fd, (err2) => (err2 ? reject(err2) : resolve()));
    });
  });
}

// Ledger appends are serialized, like the Go target's ledger mutex.
let ledgerChain = Promise.resolve();
function appendLedger(id) {
  const p = ledgerChain.then(() => appendSync(ledgerFd, id));
  ledgerChain = p.catch(() => {});
  return p;
}

// ---- HTTP -----------------------------------------------------------------

function send(res, status, obj) {
  if (res.writableEnded || res.destroyed) return;
  const body = JSON.stringify(obj) + '\n';
  if (closeOnResponse) res.setHeader('Connection', 'close');
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
const sendError = (res, status, msg) => send(res, status, { error: msg });

// queryInt reads an integer query parameter in min..max (def when absent);
// on a bad value it answers 400 naming the parameter and returns null.
function queryInt(res, q, name, def, min, max) {
  if (!q.has(name)) return def;
  const v = q.get(name);
  if (/^[+-]?[0-9]+$/.test(v) && +v >= min && +v <= max) return +v;
  sendError(res, 400, `bad ${name}=${JSON.stringify(v)}: must be an integer in ${min}..${max}`);
  return null;
}

// counted tracks a work request as in flight until its response is done or
// its connection is gone.
function counted(res) {
  inflight++;
  let done = false;
  const fin = () => {
    if (done) return;
    done = true;
    inflight--;
    check();
  };
  res.on('finish', fin);
  res.on('close', fin);
}

// work answers 200 {"ok":true} after ms, unless the client goes away first.
function work(res, ms) {
  const t = setTimeout(() => send(res, 200, { ok: true }), ms);
  res.on('close', () => clearTimeout(t));
}

const routes = {
  '/readyz': ['GET', (req, res) => send(res, ready ? 200 : 503, { ready, inflight })],
  '/livez': ['GET', (req, res) => send(res, 200, { live: true })],
  '/slow': ['GET', (req, res, q) => {
    const ms = queryInt(res, q, 'ms', 300, 0, MAX_MS);
    if (ms === null) return;
    counted(res);
    work(res, ms);
  }],
  '/write': ['POST', (req, res, q) => {
    const id = req.headers['x-request-id'];
    if (!id) return sendError(res, 400, 'missing X-Request-Id header');
    const ms = queryInt(res, q, 'ms', 300, 0, MAX_MS);
    if (ms === null) return;
    counted(res);
    req.on('end', () => {
      appendLedger(id).then(() => work(res, ms),
        (err) => sendError(res, 500, 'ledger: ' + err.message));
    });
    req.resume(); // discard the body; 'end' follows
  }],
  '/job': ['GET', (req, res, q) => {
    const steps = queryInt(res, q, 'steps', 10, 1, MAX_STEPS);
    if (steps === null) return;
    const stepMs = queryInt(res, q, 'step_ms', 300, 0, MAX_MS);
    if (stepMs === null) return;
    if (job.running) return sendError(res, 409, 'a job is already running');
    let fd;
    try {
      fd = fs.openSync(path.join(cfg.dataDir, 'job.log'), 'a', 0o644);
    } catch (e) {
      return sendError(res, 500, 'job log: ' + e.message);
    }
    Object.assign(job, { running: true, step: 0, steps });
    log({ event: 'job_start', job_step: 0, job_steps: steps });
    send(res, 202, { accepted: true, steps, step_ms: stepMs });
    runJob(fd, steps, stepMs);
  }],
  '/events': ['GET', (req, res, q) => (hub ? hub.plain(req, res, q) : sendError(res, 404, 'not found'))],
};

// runJob appends "step i/N" (fsync) every stepMs, then "COMMIT".
async function runJob(fd, steps, stepMs) {
  let ev = 'job_commit';
  let msg;
  try {
    for (let i = 1; i <= steps; i++) {
      await sleep(stepMs);
      await appendSync(fd, `step ${i}/${steps}`);
      job.step = i;
    }
    await appendSync(fd, 'COMMIT');
  } catch (e) {
    ev = 'job_error';
    msg = e.message;
  }
  fs.close(fd, () => {});
  log({ event: ev, job_step: job.step, job_steps: steps, msg });
  job.running = false;
  check();
}

function handler(req, res) {
  let u;
  try {
    u = new URL(req.url, 'http://target');
  } catch (_) {
    return sendError(res, 400, 'bad request URL');
  }
  const route = routes[u.pathname];
  if (!route) return sendError(res, 404, 'not found');
  const [method, fn] = route;
  if (req.method !== method && !(method === 'GET' && req.method === 'HEAD')) {
    res.setHeader('Allow', method === 'GET' ? 'GET, HEAD' : method);
    return sendError(res, 405, 'method not allowed');
  }
  fn(req, res, u.searchParams);
}

const server = http.createServer(handler);
server.keepAliveTimeout = cfg.keepaliveMs; // 0: no keep-alive timeout
server.on('connection', (s) => {
  conns.add(s); // an upgraded socket stays here (and in net.Server's count) until it closes
  s.on('close', () => {
    conns.delete(s);
    check();
  });
});

// newHub is the /events stream; its hooks log the WebSocket events here,
// where the record package's scan of the event names looks.
function newHub() {
  return new events.Hub({
    cfg, nowNs, msSince, sendError, refusing: () => !ready, onChange: () => check(),
    hooks: {
      closing: (conns, ms, msg) => log({ event: 'ws_closing', ms, conns, msg }),
      closeSent: (conn, ms) => log({ event: 'ws_close_sent', ms, conn }),
      terminated: (conn, ms, msg) => log({ event: 'ws_terminated', ms, conn, msg }),
    },
  });
}

// An upgrade request: GET /events goes to the hub (admission, then the
// stream); any other is answered by the HTTP routes (events.serveAsHTTP).
server.on('upgrade', (req, socket, head) => {
  const u = URL.canParse(req.url, 'http://target') ? new URL(req.url, 'http://target') : null;
  if (hub && u && u.pathname === '/events' && req.method === 'GET') return hub.upgrade(req, socket, head, u.searchParams);
  events.serveAsHTTP(req, socket, handler);
});

// ---- shutdown -------------------------------------------------------------

function exit(code, msg) {
  log({ event: 'exit', code, msg });
  process.exit(code);
}

// abandon logs what the exit cuts: open /events streams, the running job.
function abandon() {
  if (hub && hub.size > 0) log({ event: 'ws_abandoned', conns: hub.size });
  if (job.running) log({ event: 'job_abandoned', job_step: job.step, job_steps: job.steps });
}

// check ends a full-mode drain once nothing is left.
function check() {
  if (!draining || inflight > 0 || conns.size > 0 || job.running) return;
  draining = false;
  log({ event: 'drained', ms: msSince(signalNs) });
  exit(0);
}

function closeMode() {
  server.close((err) => {
    log({ event: 'shutdown_returned', ms: msSince(signalNs), msg: err ? err.message : undefined });
    abandon();
    exit(err ? 1 : 0, err ? err.message : undefined);
  });
  log({ event: 'listener_closed' });
}

// afterSignal runs fn once ms have passed since the signal on the
// high-resolution clock (a timer alone may fire up to 1 ms early).
function afterSignal(ms, fn) {
  const left = ms - msSince(signalNs);
  if (left <= 0) fn();
  else setTimeout(() => afterSignal(ms, fn), Math.ceil(left));
}

function fullMode() {
  ready = false; // step 1
  log({ event: 'ready_false' });
  if (cfg.drainMs > 0) {
    afterSignal(cfg.drainMs, () => {
      log({ event: 'deadline', ms: msSince(signalNs), inflight, job_step: job.step, job_steps: job.steps });
      abandon();
      exit(1);
    });
  }
  afterSignal(cfg.prestopMs, () => { // step 2: PRESTOP_MS of normal service
    server.close(); // step 3; Node also sweeps idle sockets once
    log({ event: 'listener_closed' });
    closeOnResponse = true; // step 4
    server.closeIdleConnections();
    setInterval(() => server.closeIdleConnections(), cfg.sweepMs);
    hub.retireStreams(signalNs); // closeIdleConnections never touches an upgraded socket
    draining = true; // step 5
    check();
  });
}

function onSignal(name) {
  if (shuttingDown) {
    const msg = cfg.mode === 'close' ? 'ignored: already shutting down' : 'ignored: already draining';
    log({ event: 'signal', signal: name, msg });
    return;
  }
  shuttingDown = true;
  signalNs = nowNs();
  log({ event: 'signal', signal: name }, signalNs);
  if (cfg.mode === 'close') closeMode();
  else fullMode();
}

if (isMain && cfg.mode !== 'none') {
  // Before listening: no window where the signal kills a draining mode.
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

module.exports = { MAX_MS, nowNs, msSince, writeAll, log, parseConfig, send, sendError, queryInt, handler };

if (isMain) listen();

function listen() {
  try {
    hub = newHub();
  } catch (e) {
    writeAll(2, `target: /events: ${e.message}\n`);
    process.exit(2);
  }
  server.on('error', (e) => {
    writeAll(2, `target: listen: ${e.message}\n`);
    process.exit(2);
  });
  server.listen({ port: cfg.port, host: cfg.host || undefined }, () => {
    hub.start();
    server.removeAllListeners('error');
    server.on('error', (e) => exit(1, 'server error: ' + e.message));
    const host = cfg.host || '0.0.0.0';
    log({ event: 'up', mode: cfg.mode, msg: `runtime=node node=${process.version} pid=${process.pid} ` +
      `host=${host} port=${server.address().port} drain_ms=${cfg.drainMs} prestop_ms=${cfg.prestopMs} ` +
      `keepalive_ms=${cfg.keepaliveMs} sweep_ms=${cfg.sweepMs} data_dir=${cfg.dataDir}` });
  });
}
