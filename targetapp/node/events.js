'use strict';
// The Node target's /events WebSocket stream (issue 13), on the `ws`
// library: the Go target's targetapp/events.go, eventstream.go,
// admission.go, wsretire.go and config_ws.go, line by line where the
// runtimes allow (targetapp/node/README.md lists where they do not).
//
//   - events numbered by the wall clock (seq = Unix ns / interval, due at
//     seq × interval), kept in a ring of EVENTS_REPLAY + 1024 entries;
//   - ?after=SEQ replays what the newest EVENTS_REPLAY still hold;
//   - admission on upgrade: draining → 503 draining, over UPGRADES_PER_S
//     (a token bucket of 100 ms' worth, at least 1) → 503 capacity, both
//     with Connection: close and X-Shutdownlab-Refusal;
//   - full mode: every stream gets its close frame 1001 at a random moment
//     in [0, CLOSE_SPREAD_MS); a peer that has not finished the closing
//     handshake CLOSE_DEADLINE_MS later is terminated.
//
// server.js owns the lifecycle log: every event name is spelled there (the
// record package's scan reads server.js); this module calls its hooks.
const http = require('http');

// WS_DIR is where Debian's node-ws package installs the library.
const WS_DIR = '/usr/share/nodejs/ws';

// loadWS returns the ws library: require(name) (the image's
// /app/node_modules/ws, or NODE_PATH), else Debian's copy in dir. It throws
// an error naming both places and the fix when neither is there.
function loadWS(name = 'ws', dir = WS_DIR) {
  try {
    return require(name);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
  }
  try {
    return require(dir);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(`the ws library is missing: require('${name}') found nothing and ${dir} does not exist ` +
      '(install it: apt-get install node-ws)');
  }
}

// ---- configuration (config_ws.go) ----------------------------------------

const MAX_CLOSE_DEADLINE_MS = 4000; // below coder/websocket's 5 s, as the Go target

// parseWSConfig reads the /events variables of env into c, reporting each
// bad one through bad(name, value, reason); int(v, min, max) parses.
function parseWSConfig(env, c, bad, int, maxMs) {
  Object.assign(c, { eventsPerS: 10, eventsReplay: 0, upgradesPerS: 0, closeSpreadMs: 0, closeDeadlineMs: 2000,
    admitDraining: false, instance: env.INSTANCE || '' });
  // UPGRADES_WHILE_DRAINING=accept: a server that only fails readiness (W1).
  const u = env.UPGRADES_WHILE_DRAINING;
  if (u === 'accept') c.admitDraining = true;
  else if (u && u !== 'refuse') bad('UPGRADES_WHILE_DRAINING', u, 'must be refuse or accept');
  for (const [name, key, min, max] of [['EVENTS_PER_S', 'eventsPerS', 0, 1000],
    ['EVENTS_REPLAY', 'eventsReplay', 0, 1000000], ['UPGRADES_PER_S', 'upgradesPerS', 0, 1000000],
    ['CLOSE_SPREAD_MS', 'closeSpreadMs', 0, maxMs], ['CLOSE_DEADLINE_MS', 'closeDeadlineMs', 1, MAX_CLOSE_DEADLINE_MS]]) {
    const v = env[name];
    if (!v) continue;
    const n = int(v, min, max);
    if (n === null) bad(name, v, `must be an integer in ${min}..${max}`);
    else c[key] = n;
  }
}

// ---- the event stream (eventstream.go) -----------------------------------

// FANOUT_SLACK is how many events the ring keeps beyond the replay buffer.
const FANOUT_SLACK = 1024;

// EventStream is one event every interval, numbered by the wall clock,
// the newest kept in a ring for the writers and the replay buffer.
class EventStream {
  constructor(perS, replay, nowNs, onEvents) {
    this.intervalNs = perS > 0 ? 1000000000n / BigInt(perS) : 0n; // Go: time.Second / perS
    this.replay = replay;
    this.size = replay + FANOUT_SLACK;
    this.ring = new Array(this.size); // seq % size → the frame's JSON (live)
    this.last = 0; // highest seq appended; valid while count > 0
    this.count = 0;
    this.nowNs = nowNs;
    this.onEvents = onEvents;
  }

  frame(seq) {
    return `{"type":"event","id":"ev-${seq}","seq":${seq},"ts_ns":${BigInt(seq) * this.intervalNs}}`;
  }

  // run ticks now and then at every event's due moment; its timer never
  // keeps the process alive on its own.
  run() {
    if (this.intervalNs === 0n) return;
    this.tick();
    const nextNs = (BigInt(this.last) + 1n) * this.intervalNs;
    const waitMs = Number(nextNs - this.nowNs()) / 1e6;
    setTimeout(() => this.run(), Math.max(0, Math.ceil(waitMs))).unref();
  }

  // tick appends every event due now that is not in the ring yet: the
  // first tick starts at the event due now, a late one catches up at most a
  // ring's worth. It wakes the writers.
  tick() {
    const due = Number(this.nowNs() / this.intervalNs);
    let from = this.count === 0 ? due : this.last + 1;
    if (due - from >= this.size) {
      from = due - this.size + 1;
      this.count = 0; // a jump: what the ring held is not contiguous with what follows
    }
    if (from > due) return;
    for (let seq = from; seq <= due; seq++) {
      this.ring[seq % this.size] = this.frame(seq);
      this.count = Math.min(this.count + 1, this.size);
    }
    this.last = due;
    this.onEvents();
  }

  // start is a new connection's [cursor, replayTo]: live from the newest
  // event without after or without a replay buffer; else from after, no
  // older than the buffer.
  start(after, has) {
    const last = this.last;
    if (this.count === 0 || !has || this.replay === 0) return [last, last];
    const oldest = last - Math.min(this.replay, this.count);
    return [Math.max(after, oldest), last];
  }

  // after returns the frames after cursor the ring holds (an older cursor
  // skips ahead), those up to replayTo marked replay, and the new cursor.
  after(cursor, replayTo) {
    if (this.count === 0 || cursor >= this.last) return [[], cursor];
    const frames = [];
    for (let seq = Math.max(cursor + 1, this.last - this.count + 1); seq <= this.last; seq++) {
      const f = this.ring[seq % this.size];
      frames.push(seq <= replayTo ? f.slice(0, -1) + ',"replay":true}' : f);
    }
    return [frames, this.last];
  }
}

// ---- admission (admission.go) --------------------------------------------

// Admission is the handshake-rate capacity: a token bucket refilling rate
// tokens per second, holding a tenth of a second's worth (at least one).
class Admission {
  constructor(rate) {
    this.rate = rate;
    this.burst = Math.max(1, rate / 10);
    this.tokens = this.burst;
    this.last = null; // monotonic ns
  }

  allow(now) {
    if (this.last !== null && now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + Number(now - this.last) / 1e9 * this.rate);
    }
    if (this.last === null || now > this.last) this.last = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
}

// ---- the streams (events.go, wsretire.go) -------------------------------

// atNs runs fn once the clock has reached ns (a timer alone may fire up to
// 1 ms early on the high-resolution clock).
function atNs(nowNs, ns, fn) {
  const left = Number(ns - nowNs()) / 1e6;
  if (left <= 0) fn();
  else setTimeout(() => atNs(nowNs, ns, fn), Math.ceil(left));
}

// Hub holds the open /events streams. opts: cfg; nowNs and msSince (the
// target's clock); refusing() (true from full mode's step 1); sendError
// (the target's JSON error answer); onChange() (a stream ended);
// hooks {closing(conns, ms, msg), closeSent(conn, ms), terminated(conn,
// ms, msg)}, which log. Constructing it loads ws (loadWS throws when it is
// missing).
class Hub {
  constructor(opts) {
    Object.assign(this, opts);
    const { WebSocketServer } = loadWS();
    // No compression, no tracking of ours, coder/websocket's 32 KiB read limit.
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload: 32768 });
    // INSTANCE names this replica on its 101: a proxy's header rules skip
    // upgrades (the Go target's events.go does the same).
    if (this.cfg.instance) this.wss.on('headers', (h) => h.push(`X-Shutdownlab-Upstream: ${this.cfg.instance}`));
    this.streams = new Map(); // id → stream
    this.next = 0;
    this.onAdd = null; // set once retirement began: retires a late stream too
    this.admit = this.cfg.upgradesPerS > 0 ? new Admission(this.cfg.upgradesPerS) : null;
    this.events = new EventStream(this.cfg.eventsPerS, this.cfg.eventsReplay, this.nowNs, () => {
      for (const s of this.streams.values()) this.pump(s);
    });
  }

  // start runs the event clock.
  start() {
    this.events.run();
  }

  // size is the number of open streams: a stream whose socket is destroyed
  // is not open even before its 'close' event (net.Server's close callback
  // can run in between).
  get size() {
    let n = 0;
    for (const s of this.streams.values()) if (!s.socket.destroyed) n++;
    return n;
  }

  // admission checks an /events request: {after, has}, or {status, error,
  // refusal} to answer (a bad after: 400; draining or over capacity: 503).
  admission(q) {
    let after = 0;
    const has = q.has('after');
    if (has) {
      const v = q.get('after');
      if (!/^[+-]?[0-9]+$/.test(v) || BigInt(v) < 0n || BigInt(v) > 9223372036854775807n) {
        return { status: 400, error: `bad after=${JSON.stringify(v)}: must be a sequence number ≥ 0` };
      }
      after = Number(BigInt(v));
    }
    if (this.refusing() && !this.cfg.admitDraining) return { status: 503, error: 'upgrade refused: draining', refusal: 'draining' };
    if (this.admit && !this.admit.allow(process.hrtime.bigint())) {
      return { status: 503, error: 'upgrade refused: capacity', refusal: 'capacity' };
    }
    return { after, has };
  }

  // plain answers GET /events without an upgrade: the admission's answer,
  // else 426.
  plain(req, res, q) {
    const a = this.admission(q);
    if (a.status === 503) {
      res.setHeader('Connection', 'close');
      res.setHeader('X-Shutdownlab-Refusal', a.refusal);
    }
    if (a.status) return this.sendError(res, a.status, a.error);
    res.setHeader('Upgrade', 'websocket');
    this.sendError(res, 426, 'upgrade required: /events is a WebSocket stream');
  }

  // upgrade handles a GET /events upgrade: admission, then the stream.
  upgrade(req, socket, head, q) {
    socket.on('error', () => {}); // a reset peer: the socket closes, nothing to report
    const a = this.admission(q);
    if (a.status) {
      const extra = a.refusal ? `X-Shutdownlab-Refusal: ${a.refusal}\r\n` : '';
      const body = JSON.stringify({ error: a.error }) + '\n';
      socket.once('finish', socket.destroy); // as ws's own refusals
      socket.end(`HTTP/1.1 ${a.status} ${http.STATUS_CODES[a.status]}\r\nConnection: close\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, socket, a.after, a.has));
  }

  // serve registers an accepted stream and starts writing. readDone is the
  // Go target's reader ending: ws ended our side of the socket (the close
  // frames have crossed, or the peer sent FIN), or the socket closed.
  serve(ws, socket, after, has) {
    const s = { id: 0, ws, socket, cursor: 0, replayTo: 0, stopped: false, readDone: false, waitDrain: false };
    const readDone = () => { s.readDone = true; };
    ws.on('error', () => {}); // a protocol error: ws closes the connection; 'close' follows
    socket.once('finish', readDone);
    ws.once('close', () => {
      readDone();
      this.streams.delete(s.id);
      this.onChange();
    });
    s.id = ++this.next;
    this.streams.set(s.id, s);
    if (this.onAdd) this.onAdd(s);
    [s.cursor, s.replayTo] = this.events.start(after, has);
    this.pump(s);
  }

  // pump writes the frames after the stream's cursor; while the socket's
  // buffer is full it waits for 'drain' (Go: the blocking Write), so a
  // stream that falls a ring behind skips ahead.
  pump(s) {
    if (s.stopped || s.waitDrain || s.ws.readyState !== s.ws.OPEN) return;
    const [frames, last] = this.events.after(s.cursor, s.replayTo);
    s.cursor = last;
    for (const f of frames) s.ws.send(f);
    if (frames.length > 0 && s.socket.writableNeedDrain) {
      s.waitDrain = true;
      s.socket.once('drain', () => {
        s.waitDrain = false;
        this.pump(s);
      });
    }
  }

  // retireStreams (full mode, step 4) sends every open stream, and any that
  // opens later, a close frame 1001 at a random moment in
  // [0, CLOSE_SPREAD_MS), and terminates a peer that has not finished the
  // closing handshake CLOSE_DEADLINE_MS later. hooks.closing is called
  // only when a stream is open.
  retireStreams(signalNs) {
    if (this.onAdd) return;
    this.onAdd = (s) => this.retire(s, this.closeOffsetMs(), signalNs);
    const streams = [...this.streams.values()].filter((s) => !s.socket.destroyed);
    if (streams.length === 0) return; // an HTTP-only drain logs no WebSocket event
    this.hooks.closing(streams.length, this.msSince(signalNs),
      `close_spread_ms=${this.cfg.closeSpreadMs} close_deadline_ms=${this.cfg.closeDeadlineMs}`);
    for (const s of streams) this.retire(s, this.closeOffsetMs(), signalNs);
  }

  // closeOffsetMs is uniform in [0, CLOSE_SPREAD_MS), 0 without a window.
  closeOffsetMs() {
    return this.cfg.closeSpreadMs > 0 ? Math.random() * this.cfg.closeSpreadMs : 0;
  }

  // retire closes one stream offsetMs from now: stop writing, closeSent,
  // close frame 1001; terminated and the socket destroyed when readDone
  // has not come CLOSE_DEADLINE_MS later.
  retire(s, offsetMs, signalNs) {
    atNs(this.nowNs, this.nowNs() + BigInt(Math.floor(offsetMs * 1e6)), () => {
      if (s.readDone || s.socket.destroyed) return; // ended on its own before its moment
      s.stopped = true;
      this.hooks.closeSent(s.id, this.msSince(signalNs));
      s.ws.close(1001, 'going away');
      const deadlineMs = this.cfg.closeDeadlineMs;
      atNs(this.nowNs, this.nowNs() + BigInt(deadlineMs) * 1000000n, () => {
        if (s.readDone) return;
        this.hooks.terminated(s.id, this.msSince(signalNs), `no close frame within close_deadline_ms=${deadlineMs}`);
        s.ws.terminate();
      });
    });
  }
}

// serveAsHTTP answers an upgrade request that is not for /events with the
// target's HTTP handler on its socket, then closes the socket: Go serves
// such a request as if it carried no Upgrade header.
function serveAsHTTP(req, socket, handler) {
  socket.on('error', () => {});
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.on('finish', () => {
    res.detachSocket(socket);
    socket.destroySoon();
  });
  handler(req, res);
}

module.exports = { WS_DIR, loadWS, parseWSConfig, EventStream, Admission, Hub, serveAsHTTP };
