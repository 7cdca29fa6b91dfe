'use strict';
// shutdownlab's Node cluster target: a primary process and CLUSTER_WORKERS
// workers sharing one port (node:cluster, Node core only), for the failure
// modes a single process cannot show (issue 16, claims C1-C4).
//
// Workers serve /readyz, /livez and /slow exactly as server.js does (its
// handler, required as a module), plus:
//
//   /proxy?ms=N   forwards the request (method, body) to BACKEND's
//                 /slow?ms=N and the answer back, with stream.pipe()
//                 (PROXY_IMPL=pipe: a client that drops mid-request leaves
//                 the backend socket open) or stream.pipeline()
//                 (PROXY_IMPL=pipeline: it is destroyed with the client).
//   POST /crash   answers 200, then the worker SIGKILLs itself.
//
// A worker told to shut down (IPC message or SIGTERM/SIGINT) closes its
// server and IPC channel (cluster's worker.disconnect(): a plain close) and
// exits when nothing is left open: an open socket keeps it alive.
//
// The primary's supervisor, SUPERVISOR:
//
//   blind  re-forks every worker that exits, always. On SIGTERM/SIGINT it
//          passes the signal on to the workers (they shut down) and keeps
//          running: only SIGKILL ends it (C1).
//   gated  re-forks a worker only when it exits while the pool is running
//          (a crash). On the first SIGTERM/SIGINT it broadcasts shutdown over
//          IPC (teardown_broadcast), forks nothing, and exits 0 when the pool
//          is empty (C2). With TEARDOWN_MS > 0, if workers are still alive
//          that long after the signal, it logs forced_exit, SIGKILLs them and
//          exits 1 (C3). Later signals are logged and ignored.
//
// SIGUSR2 to the primary SIGKILLs one worker (the lowest id): a crash from
// outside, as `docker kill -s USR2` sends it.
//
// Lifecycle events (server.js's log, one JSON line each) come from the
// primary: up (once the first CLUSTER_WORKERS workers listen), signal, fork, worker_exit,
// teardown_broadcast, forced_exit, exit. Bad environment: a message on
// stderr per variable, exit 2.
const cluster = require('node:cluster');
const http = require('node:http');
const { pipeline } = require('node:stream');
const target = require('./server.js');

const { MAX_MS, log, msSince, nowNs, writeAll } = target;

// parseClusterConfig reads the cluster's own variables; server.js's
// parseConfig reads the shared ones (PORT, LISTEN_HOST, KEEPALIVE_MS, ...).
function parseClusterConfig(env) {
  const { cfg: base, errs } = target.parseConfig(env);
  const c = { ...base, workers: 2, supervisor: 'gated', teardownMs: 0, backend: '', proxyImpl: 'pipeline' };
  const bad = (name, v, reason) => errs.push(`invalid ${name}=${JSON.stringify(v)}: ${reason}`);
  const int = (v, min, max) => (/^[+-]?[0-9]+$/.test(v) && +v >= min && +v <= max ? +v : null);
  if (env.CLUSTER_WORKERS) {
    const n = int(env.CLUSTER_WORKERS, 1, 64);
    if (n === null) bad('CLUSTER_WORKERS', env.CLUSTER_WORKERS, 'must be an integer in 1..64');
    else c.workers = n;
  }
  if (env.SUPERVISOR) {
    if (['blind', 'gated'].includes(env.SUPERVISOR)) c.supervisor = env.SUPERVISOR;
    else bad('SUPERVISOR', env.SUPERVISOR, 'must be blind or gated');
  }
  if (env.TEARDOWN_MS) {
    const n = int(env.TEARDOWN_MS, 0, MAX_MS);
    if (n === null) bad('TEARDOWN_MS', env.TEARDOWN_MS, `must be an integer number of milliseconds in 0..${MAX_MS}`);
    else c.teardownMs = n;
  }
  if (env.PROXY_IMPL) {
    if (['pipe', 'pipeline'].includes(env.PROXY_IMPL)) c.proxyImpl = env.PROXY_IMPL;
    else bad('PROXY_IMPL', env.PROXY_IMPL, 'must be pipe or pipeline');
  }
  if (env.BACKEND) {
    const m = /^(.+):([0-9]{1,5})$/.exec(env.BACKEND);
    if (!m || +m[2] < 1 || +m[2] > 65535) bad('BACKEND', env.BACKEND, 'must be host:port');
    else c.backend = { host: m[1].replace(/^\[(.*)\]$/, '$1'), port: +m[2] };
  }
  return { cfg: c, errs };
}

const { cfg, errs } = parseClusterConfig(process.env);
if (errs.length > 0) {
  if (cluster.isPrimary) for (const e of errs) writeAll(2, `target: ${e}\n`);
  process.exit(2);
}

// ---- worker ---------------------------------------------------------------

// proxy forwards req to the backend's /slow?ms=N and the answer back.
function proxy(req, res, q) {
  const ms = target.queryInt(res, q, 'ms', 300, 0, MAX_MS);
  if (ms === null) return;
  if (!cfg.backend) return target.sendError(res, 503, 'no BACKEND configured');
  const headers = { ...req.headers, host: `${cfg.backend.host}:${cfg.backend.port}` };
  const up = http.request({ host: cfg.backend.host, port: cfg.backend.port, method: req.method,
    path: `/slow?ms=${ms}`, headers, agent: false });
  up.flushHeaders(); // the backend sees the request now, body or not
  const failed = (err) => target.sendError(res, 502, 'backend: ' + err.message);
  const answer = (upRes) => {
    res.writeHead(upRes.statusCode, upRes.headers);
    return upRes;
  };
  if (cfg.proxyImpl === 'pipe') {
    // pipe() neither ends nor destroys the destination when the source
    // fails: a client that drops mid-body leaves `up` open.
    up.on('error', failed);
    up.on('response', (upRes) => answer(upRes).pipe(res));
    req.pipe(up);
    return;
  }
  // pipeline() destroys every stream when one fails.
  pipeline(req, up, (err) => { if (err) failed(err); });
  up.on('response', (upRes) => pipeline(answer(upRes), res, () => {}));
}

// crash answers, then kills this worker with SIGKILL.
function crash(req, res) {
  res.setHeader('Connection', 'close');
  const body = JSON.stringify({ crashing: true, pid: process.pid }) + '\n';
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body, () => process.kill(process.pid, 'SIGKILL'));
}

function workerHandler(req, res) {
  let u;
  try {
    u = new URL(req.url, 'http://target');
  } catch (_) {
    return target.sendError(res, 400, 'bad request URL');
  }
  switch (u.pathname) {
    case '/readyz': case '/livez': case '/slow':
      return target.handler(req, res);
    case '/proxy':
      return proxy(req, res, u.searchParams);
    case '/crash':
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        return target.sendError(res, 405, 'method not allowed');
      }
      return crash(req, res);
    default:
      return target.sendError(res, 404, 'not found');
  }
}

function runWorker() {
  const server = http.createServer(workerHandler);
  server.keepAliveTimeout = cfg.keepaliveMs;
  let closing = false;
  let wanted = false; // told to shut down before the server listened
  const shutdown = () => {
    if (closing) return;
    if (!server.listening) {
      wanted = true; // a disconnect now would leave the listen to finish later, forever
      return;
    }
    closing = true;
    cluster.worker.disconnect(); // server.close(), then the IPC channel
  };
  server.on('listening', () => { if (wanted) shutdown(); });
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('message', (m) => { if (m && m.cmd === 'shutdown') shutdown(); });
  server.on('error', (e) => {
    writeAll(2, `target: worker ${cluster.worker.id}: listen: ${e.message}\n`);
    process.exit(2);
  });
  server.listen({ port: cfg.port, host: cfg.host || undefined });
}

// ---- primary --------------------------------------------------------------

let shuttingDown = false; // gated: the teardown was broadcast
let signalNs = 0n;
let listening = 0; // 'listening' events so far; up once the first pool is in

function exit(code, msg) {
  log({ event: 'exit', code, msg });
  process.exit(code);
}

// pool holds the workers forked and not yet exited (cluster.workers may
// still list a worker in its own 'exit' event).
const pool = new Set();
const alive = () => [...pool];

function fork(msg) {
  const w = cluster.fork();
  pool.add(w);
  log({ event: 'fork', worker: w.id, pid: w.process.pid, msg });
}

function onWorkerExit(w, code, signal) {
  pool.delete(w);
  log({ event: 'worker_exit', worker: w.id, pid: w.process.pid, code: code === null ? undefined : code,
    signal: signal || undefined });
  if (cfg.supervisor === 'blind' || !shuttingDown) {
    fork(`replaces worker=${w.id}`);
    return;
  }
  if (alive().length === 0) exit(0, 'every worker exited');
}

// teardown is the gated supervisor's answer to the first signal.
function teardown() {
  shuttingDown = true;
  const ws = alive();
  log({ event: 'teardown_broadcast', msg: `workers=${ws.length}` });
  for (const w of ws) if (w.isConnected()) w.send({ cmd: 'shutdown' });
  if (ws.length === 0) exit(0, 'every worker exited');
  if (cfg.teardownMs > 0) {
    const t = setTimeout(forceExit, cfg.teardownMs);
    t.unref();
  }
}

function forceExit() {
  const ws = alive();
  log({ event: 'forced_exit', ms: msSince(signalNs),
    msg: `forced the exit: TEARDOWN_MS=${cfg.teardownMs} passed with ${ws.length} worker(s) alive ` +
      `(${ws.map((w) => 'worker=' + w.id + ' pid=' + w.process.pid).join(', ')}); SIGKILL them` });
  for (const w of ws) w.process.kill('SIGKILL');
  exit(1, 'teardown timeout');
}

function onSignal(name) {
  if (cfg.supervisor === 'blind') {
    const ws = alive();
    log({ event: 'signal', signal: name, msg: `passed on to ${ws.length} worker(s)` });
    for (const w of ws) w.process.kill(name);
    return;
  }
  if (shuttingDown) {
    log({ event: 'signal', signal: name, msg: 'ignored: already shutting down' });
    return;
  }
  signalNs = nowNs();
  log({ event: 'signal', signal: name }, signalNs);
  teardown();
}

// crashOne SIGKILLs the worker with the lowest id (SIGUSR2).
function crashOne() {
  const ws = alive().sort((a, b) => a.id - b.id);
  if (ws.length > 0) ws[0].process.kill('SIGKILL');
}

function runPrimary() {
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGUSR2', crashOne);
  cluster.on('exit', onWorkerExit);
  cluster.on('listening', (w, addr) => {
    if (++listening !== cfg.workers) return;
    const backend = cfg.backend ? `${cfg.backend.host}:${cfg.backend.port}` : 'none';
    log({ event: 'up', mode: cfg.supervisor, msg: `runtime=node node=${process.version} pid=${process.pid} ` +
      `host=${cfg.host || '0.0.0.0'} port=${addr.port} workers=${cfg.workers} supervisor=${cfg.supervisor} ` +
      `teardown_ms=${cfg.teardownMs} proxy_impl=${cfg.proxyImpl} backend=${backend} keepalive_ms=${cfg.keepaliveMs}` });
  });
  for (let i = 0; i < cfg.workers; i++) fork('start');
}

if (cluster.isPrimary) runPrimary();
else runWorker();
