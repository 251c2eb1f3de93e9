// Reads a run's histograms with HdrHistogram's JavaScript port, an
// implementation independent of the Go library the harness records with:
// every op's compressed latency histogram in summary.json, and every
// interval of every <op>.hlog. Prints one JSON document on stdout.
//   node hdr-reference.js RUN_DIR   (NODE_PATH holds hdr-histogram-js)
'use strict';
const fs = require('fs');
const path = require('path');
const hdr = require('hdr-histogram-js');

const dir = process.argv[2];
const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
const out = { ops: {}, hlogs: {} };

function figures(h) {
  const at = (p) => h.getValueAtPercentile(p);
  return { count: h.totalCount, p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: h.maxValue };
}

for (const [prefix, list] of [['', summary.ops], ['action:', summary.actions || []]]) {
  for (const op of list) {
    if (!op.latency_hist) continue;
    out.ops[prefix + op.op] = figures(hdr.decodeFromCompressedBase64(op.latency_hist, 32, false));
  }
}

for (const name of fs.readdirSync(dir)) {
  if (!name.endsWith('.hlog')) continue;
  const reader = new hdr.HistogramLogReader(fs.readFileSync(path.join(dir, name), 'utf8'), 32, false);
  const counts = [];
  let tag = name.slice(0, -'.hlog'.length);
  for (let h = reader.nextIntervalHistogram(); h !== null; h = reader.nextIntervalHistogram()) {
    counts.push(h.totalCount);
    tag = h.tag || tag;
  }
  out.hlogs[tag] = counts;
}
process.stdout.write(JSON.stringify(out));
