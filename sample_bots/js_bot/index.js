'use strict';
// A sample Seka bot in Node.js, using only @grpc/grpc-js and @grpc/proto-loader.
//
// It loads the protocol from ../../protos at run time, serves seka.v1.SekaBot and the standard
// grpc.health.v1.Health service (grpc-js has no built-in health service, so the bot implements it
// from protos/grpc/health/v1/health.proto), and plays every profile (hands.js values the hands
// of each) by hand strength with two thresholds:
//   strong (28 or more, or any seka): show, open or call when it may, otherwise raise to the most;
//   medium (21 to 27):                pay the least allowed (support); after 10 actions it shows,
//                                     opens or calls when it may;
//   weak (below 21):                  pay the least when nobody has paid yet, else fold.
// With two-card hands (classic, cards: 2) the thresholds are 21 and 17. Dealt in without seeing
// its cards (dark play), it looks. It declines svara offers.
//
// Run it with the address in SEKA_BOT_ADDRESS or after --address:
//   SEKA_BOT_ADDRESS=unix:/tmp/js.sock node sample_bots/js_bot/index.js
//   node sample_bots/js_bot/index.js --address 127.0.0.1:50051

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOS = path.join(__dirname, '..', '..', 'protos');
// keepCase: field names as in the .proto (snake_case); longs as Number: amounts are small;
// defaults: absent scalars read as 0/''/false and absent messages as null.
const LOAD_OPTIONS = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [PROTOS] };
const PROTOCOL_VERSION = 'seka.v1';
const SEKA_SERVICE = 'seka.v1.SekaBot';

const { handValue } = require('./hands');

const STRONG = 28;
const MEDIUM = 21;
const STRONG_TWO_CARDS = 21;
const MEDIUM_TWO_CARDS = 17;
const SHOW_AFTER = 10;

function log(...parts) {
  console.error(new Date().toISOString(), 'js_bot:', ...parts);
}

// ---------------------------------------------------------------- the game

// The table of the session, from its Hello: the profile and its options value the hands. A
// process plays one session, so one table is enough.
const table = { profile: 'georgian', options: {}, handSize: 3 };

// What ends the betting by comparing hands, when the bot may: show (heads-up), open, call.
function compare(legal) {
  if (legal.can_show) return { show: {} };
  if (legal.open) return { open: {} };
  if (legal.call) return { call: {} };
  return null;
}

// The cheapest way to stay in: a fresh bet of the least, or a support.
function stay(legal) {
  if (legal.min_bet) return { bet: { amount: legal.min_bet } };
  if (legal.support) return { support: {} };
  return compare(legal) || { fold: {} };
}

// The strongest payment: a fresh bet of the most, or a raise to the highest stake.
function push(legal) {
  if (legal.max_bet) return { bet: { amount: legal.max_bet } };
  if (legal.raise_to) return { raise_to: { stake: legal.raise_to.max } };
  return stay(legal);
}

function decide(turn) {
  const legal = turn.legal;
  if (turn.cards_unseen) return legal.can_look ? { look: {} } : { fold: {} };
  const strength = handValue(turn.cards, table.profile, table.options);
  const twoCards = table.handSize === 2;
  if (strength >= (twoCards ? STRONG_TWO_CARDS : STRONG)) return compare(legal) || push(legal);
  if (strength >= (twoCards ? MEDIUM_TWO_CARDS : MEDIUM)) {
    return (turn.actions_count >= SHOW_AFTER && compare(legal)) || stay(legal);
  }
  return turn.previous_bet === null ? stay(legal) : { fold: {} };
}

// ---------------------------------------------------------------- the services

// What happened in the session, told in order: inside the next Act or Svara request (`notices`,
// before the decision), or at the session's end by Notify, whose session_end carries the notices
// left (`session_end.notices`, before the end itself). This bot only logs the end.
function handleNotice(notice) {
  if (notice.notice !== 'session_end') return;
  for (const earlier of notice.session_end.notices || []) handleNotice(earlier);
  log(`session over: winners ${notice.session_end.winners}`);
}

function sekaService() {
  return {
    Hello(call, callback) {
      const hello = call.request;
      if (hello.protocol_version !== PROTOCOL_VERSION) log(`the arena speaks ${hello.protocol_version}`);
      table.profile = hello.profile || 'georgian';
      table.options = hello.options || {};
      table.handSize = (hello.table && hello.table.hand_size) || 3;
      log(`session ${hello.session_id}: ${table.profile}, seat ${hello.seat} of ${hello.table ? hello.table.seats : '?'}`);
      callback(null, { name: 'js-threshold', version: '1.0', protocol_version: PROTOCOL_VERSION });
    },
    Act(call, callback) {
      try {
        for (const notice of call.request.notices || []) handleNotice(notice);
        callback(null, decide(call.request));
      } catch (error) {
        log('Act failed:', error);
        callback({ code: grpc.status.INTERNAL, details: `Act: ${error}` });
      }
    },
    Svara(call, callback) {
      for (const notice of call.request.notices || []) handleNotice(notice);
      callback(null, { accept: false });
    },
    Notify(call, callback) {
      handleNotice(call.request);
      callback(null, {});
    },
  };
}

// grpc.health.v1.Health: Check answers at once; Watch sends the status now and on every change.
function healthService(statuses, watchers) {
  return {
    Check(call, callback) {
      const status = statuses.get(call.request.service);
      if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status });
    },
    Watch(call) {
      const service = call.request.service;
      call.write({ status: statuses.get(service) || 'SERVICE_UNKNOWN' });
      const watcher = { service, call };
      watchers.add(watcher);
      call.on('cancelled', () => watchers.delete(watcher));
      call.on('close', () => watchers.delete(watcher));
    },
  };
}

function setStatus(statuses, watchers, status) {
  for (const service of statuses.keys()) statuses.set(service, status);
  for (const { service, call } of watchers) call.write({ status: statuses.get(service) });
}

// ---------------------------------------------------------------- launch

function addressFromArgs(argv, env) {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--address' && i + 1 < argv.length) return argv[i + 1];
    if (argv[i].startsWith('--address=')) return argv[i].slice('--address='.length);
  }
  return env.SEKA_BOT_ADDRESS || null;
}

function main() {
  const address = addressFromArgs(process.argv.slice(2), process.env);
  if (!address) {
    log('no address to listen on: set SEKA_BOT_ADDRESS or pass --address ADDR');
    process.exit(2);
  }
  const definition = protoLoader.loadSync(['seka/v1/seka.proto', 'grpc/health/v1/health.proto'], LOAD_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition);
  const statuses = new Map([['', 'NOT_SERVING'], [SEKA_SERVICE, 'NOT_SERVING']]);
  const watchers = new Set();
  const server = new grpc.Server();
  server.addService(loaded.seka.v1.SekaBot.service, sekaService());
  server.addService(loaded.grpc.health.v1.Health.service, healthService(statuses, watchers));
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      log(`cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
    setStatus(statuses, watchers, 'SERVING');
    log(`serving ${PROTOCOL_VERSION} on ${address}`);
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    log('stopping');
    setStatus(statuses, watchers, 'NOT_SERVING');
    for (const { call } of watchers) call.end();
    const force = setTimeout(() => server.forceShutdown(), 1000);
    force.unref();
    server.tryShutdown(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (require.main === module) main();

module.exports = { decide, addressFromArgs, table };
