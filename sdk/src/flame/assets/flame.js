(function () {
'use strict';
var DATA = JSON.parse(document.getElementById('flame-data').textContent), TL = DATA.timeline;
var MIN_ROW = 18, MAX_ROW = 30, MIN_PX = 0.35, ROW = MIN_ROW;
var canvas = document.getElementById('chart'), ctx = canvas.getContext('2d');
var chartWrap = document.getElementById('chart-wrap');
var tip = document.getElementById('tip'), hoverBox = document.getElementById('hover-box');
var searchBox = document.getElementById('search'), viewSel = document.getElementById('view');
var widthSel = document.getElementById('width-mode');
var FONT = '12px "DejaVu Sans", system-ui, sans-serif';

function fmtTime(s) {
  var a = Math.abs(s), u = [[1, 's'], [1e-3, 'ms'], [1e-6, '\u00b5s'], [1e-9, 'ns']], i;
  if (a === 0) return '0 s';
  for (i = 0; i < 3 && a < u[i][0]; i++) {}
  var v = s / u[i][0];
  return v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2) + ' ' + u[i][1];
}
function fmtPct(x) { return isFinite(x) ? (x >= 10 ? x.toFixed(1) : x.toFixed(2)) + '%' : '\u2013'; }
function fmtInt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
function plural(n, one, many) { return fmtInt(n) + ' ' + (n === 1 ? one : many); }

// Same FNV-1a hash and colour ramps as the SVG output, so a name looks alike in both.
var encoder = new TextEncoder(), colorCache = {};
function colorOf(name, par) {
  var key = (par ? '1' : '0') + name;
  if (colorCache[key]) return colorCache[key];
  var bytes = encoder.encode(name), h = 2166136261, i;
  for (i = 0; i < bytes.length; i++) { h ^= bytes[i]; h = Math.imul(h, 16777619) >>> 0; }
  var a = (h & 0xffff) / 65535, b = (h >>> 16) / 65535;
  if (par) return (colorCache[key] = 'rgb(' + (70 + (50 * a | 0)) + ',' + (150 + (50 * b | 0)) + ',' + (215 + (30 * a | 0)) + ')');
  return (colorCache[key] = 'rgb(' + (225 + (30 * b | 0)) + ',' + (100 + (110 * a | 0)) + ',' + (40 + (40 * b | 0)) + ')');
}

function mkNode(name, total, count, par, parent) {
  var n = { name: name, total: total, count: count, par: par, parent: parent, kids: [], depth: parent ? parent.depth + 1 : 0 };
  if (parent) parent.kids.push(n);
  return n;
}
function treeOf(v) {
  var nodes = new Array(v.n.length), i;
  for (i = 0; i < v.n.length; i++) {
    nodes[i] = mkNode(DATA.names[v.n[i]], v.t[i], v.c[i], v.f[i] === 1, v.p[i] < 0 ? null : nodes[v.p[i]]);
  }
  return nodes[0];
}
function copyUnder(src, parent) {
  var n = mkNode(src.name, src.total, src.count, src.par, parent);
  src.kids.forEach(function (k) { copyUnder(k, n); });
  return n;
}

// Self time is what a frame's children leave of it; a view's thread time (the base of every
// percentage) is the sum of its frames' self times: each scope's own time counted once, summed
// over the threads. A frame's total never exceeds the self time of its subtree, so no frame and
// no table row passes 100 % of it.
function finishView(view) {
  var nodes = [], top = {}, list = [], base = 0;
  (function walk(n) { nodes.push(n); n.kids.forEach(walk); })(view.root);
  nodes.forEach(function (n, i) {
    var s = 0, k;
    n.id = i;
    for (k = 0; k < n.kids.length; k++) s += n.kids[k].total;
    n.self = Math.max(0, n.total - s);
    n.span = Math.max(n.total, s);
  });
  for (var i = nodes.length - 1; i >= 0; i--) {  // preorder reversed: children before parents
    var n = nodes[i], sum = 0;
    for (var k = 0; k < n.kids.length; k++) sum += n.kids[k].tw;
    n.tw = Math.max(n.synthetic ? 0 : n.total, sum);
  }
  nodes.forEach(function (n) {
    if (!n.parent || n.synthetic) return;
    base += n.self;
    var e = top[n.name];
    if (!e) { e = top[n.name] = { name: n.name, self: 0, count: 0 }; list.push(e); }
    e.self += n.self; e.count += n.count;
  });
  view.nodes = nodes; view.base = base; view.top = list;
  return view;
}

// Several threads: the merged and side-by-side views take their table and base from the threads,
// where a scope that waited for other threads keeps its own time (the merged tree alone cannot
// tell its children's thread time from its own).
function fromThreads(view, threadViews) {
  var top = {}, list = [], base = 0;
  threadViews.forEach(function (tv) {
    base += tv.base;
    tv.top.forEach(function (e) {
      var t = top[e.name];
      if (!t) { t = top[e.name] = { name: e.name, self: 0, count: 0 }; list.push(t); }
      t.self += e.self; t.count += e.count;
    });
  });
  if (base >= view.base) { view.base = base; view.top = list; }
  return view;
}

function sortTop(view) {
  view.top = view.top.filter(function (e) { return e.self > 0; });
  view.top.sort(function (x, y) { return y.self - x.self; });
  view.top = view.top.slice(0, 20);
}

var threadCount = DATA.threads || 0;
var threadViews = DATA.views.slice(1).map(function (v) {
  return finishView({ label: v.label, detail: v.detail, dropped: v.dropped, root: treeOf(v), kind: 'thread' });
});
var views = [];
var merged = finishView({ label: DATA.views[0].label, detail: '', dropped: DATA.views[0].dropped, root: treeOf(DATA.views[0]), kind: 'merged' });
views.push(threadViews.length ? fromThreads(merged, threadViews) : merged);
if (threadViews.length > 1) {
  var sideRoot = mkNode('all threads', 0, 1, false, null);
  threadViews.forEach(function (tv) {
    var t = mkNode(tv.label, tv.base, 1, false, sideRoot);
    t.synthetic = true;
    tv.root.kids.forEach(function (k) { copyUnder(k, t); });
    sideRoot.total += tv.base;
  });
  sideRoot.synthetic = true;
  views.push(fromThreads(finishView({ label: 'All threads, side by side', detail: '', dropped: DATA.views[0].dropped,
                                      root: sideRoot, kind: 'side' }), threadViews));
}
threadViews.forEach(function (tv) { views.push(tv); });
views.forEach(sortTop);

var state = { view: 0, zoom: null, term: '', hover: null, width: 'wall' };
var frames = [], rows = [], lastRenderMs = 0, matchCount = 0, matchTime = 0, charW = 7;

function current() { return views[state.view]; }
function matches(node) { return state.term !== '' && node.name.toLowerCase().indexOf(state.term) >= 0; }
function wallWidth() { return state.width === 'wall'; }

function layout() {
  var v = current(), z = state.zoom || v.root, W = canvas.clientWidth, out = [], anc = [], a;
  for (a = z.parent; a; a = a.parent) anc.unshift(a);
  anc.forEach(function (n, d) { out.push({ node: n, x: 0, w: W, row: d, kind: 'ancestor', scale: 1 }); });
  var base = anc.length, wall = wallWidth();
  function place(node, x, w, scale, kind) {
    out.push({ node: node, x: x, w: w, row: base + node.depth - z.depth, kind: kind, scale: scale });
    var span = wall ? node.span : node.tw;
    if (span <= 0) return;
    var cx = x, k, childScale = wall ? scale * (node.total < node.span ? node.total / node.span : 1) : 1;
    for (k = 0; k < node.kids.length; k++) {
      var c = node.kids[k], cw = w * (wall ? c.total : c.tw) / span;
      // Frames too narrow to see are skipped, unless a search match lies inside: then they get
      // a sliver so the match can be found and clicked.
      var found = state.term !== '' && c.hm;
      if (cw >= MIN_PX || found) place(c, cx, found ? Math.max(cw, 2) : cw, childScale, 'frame');
      cx += cw;
    }
  }
  if (z.total > 0 || z.span > 0) place(z, 0, W, 1, 'zoom');
  return out;
}

function markMatches(v) {
  for (var i = v.nodes.length - 1; i >= 0; i--) {
    var n = v.nodes[i];
    n.hm = n.hm === -1 ? true : matches(n);
    if (n.hm && n.parent && !n.parent.hm) n.parent.hm = -1;
  }
}

function render() {
  var t0 = performance.now(), v = current();
  v.nodes.forEach(function (n) { n.hm = false; });
  if (state.term !== '') markMatches(v);
  var dpr = window.devicePixelRatio || 1, W = canvas.clientWidth || 800;
  frames = layout();
  var maxRow = 0, i;
  for (i = 0; i < frames.length; i++) if (frames[i].row > maxRow) maxRow = frames[i].row;
  // With a timeline below, the icicle takes the height its rows want (up to 55 % of the column)
  // and the timeline the rest; alone, its rows grow to use the panel's height.
  if (TL) {
    var column = document.getElementById('left').clientHeight;
    chartWrap.style.flex = '0 0 ' + Math.round(Math.max(120, Math.min((maxRow + 1) * 24 + 2, column * 0.55 - 60))) + 'px';
  }
  ROW = Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor((chartWrap.clientHeight - 2) / (maxRow + 1))));
  var H = frames.length ? (maxRow + 1) * ROW : 0;
  canvas.style.height = H + 'px';
  canvas.width = Math.max(1, Math.round(W * dpr)); canvas.height = Math.max(1, Math.round(H * dpr));
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.font = FONT; ctx.textBaseline = 'middle';
  charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_.ABCDEF').width / 34;
  rows = [];
  var searching = state.term !== '';
  for (i = 0; i < frames.length; i++) {
    var f = frames[i], n = f.node, y = f.row * ROW;
    (rows[f.row] = rows[f.row] || []).push(f);
    var fill;
    if (f.kind === 'ancestor') fill = matches(n) ? '#dba3e3' : '#d9d4cc';
    else if (searching) fill = matches(n) ? '#c13fd0' : '#e7e3dd';
    else if (n.synthetic) fill = '#cfd8e3';
    else fill = colorOf(n.name, n.par);
    ctx.fillStyle = fill;
    ctx.fillRect(f.x, y, Math.max(f.w - (f.w > 3 ? 1 : 0), 0.5), ROW - 1);
    if (f.w > 24) {
      var room = Math.floor((f.w - 8) / charW), label = n.name;
      if (label.length > room) label = room > 2 ? label.slice(0, room - 1) + '\u2026' : '';
      if (label) {
        ctx.fillStyle = (searching && matches(n) && f.kind !== 'ancestor') ? '#fff' : '#1f1a14';
        ctx.fillText(label, f.x + 4, y + ROW / 2);
      }
    }
  }
  document.getElementById('empty').style.display = frames.length ? 'none' : 'block';
  updateSearchInfo();
  updateCrumbs();
  hoverBox.style.display = 'none';
  lastRenderMs = performance.now() - t0;
}

function baseName() { return 'thread time'; }

function updateSearchInfo() {
  var info = document.getElementById('match-info'), v = current();
  matchCount = 0; matchTime = 0;
  if (state.term === '') { info.textContent = ''; return; }
  var z = state.zoom || v.root;
  (function walk(n, covered) {
    var m = matches(n);
    if (m) { matchCount++; if (!covered && !n.synthetic) matchTime += n.total; }
    for (var k = 0; k < n.kids.length; k++) walk(n.kids[k], covered || m);
  })(z, false);
  info.textContent = matchCount === 0 ? 'no match' :
    plural(matchCount, 'frame', 'frames') + ', ' + fmtTime(matchTime) +
    (v.base > 0 ? ' (' + fmtPct(100 * matchTime / v.base) + ' of ' + baseName() + ')' : '');
}

function pathOf(n) { var p = []; for (; n; n = n.parent) p.unshift(n); return p; }

function updateCrumbs() {
  var c = document.getElementById('crumbs'), z = state.zoom;
  c.textContent = '';
  document.getElementById('reset').disabled = !z || !z.parent;
  if (!z || !z.parent) return;
  pathOf(z).forEach(function (n, i) {
    if (i) c.appendChild(document.createTextNode(' \u203a '));
    var a = document.createElement('a');
    a.textContent = n.name; a.title = 'Zoom to ' + n.name;
    a.addEventListener('click', function () { zoomTo(n); });
    c.appendChild(a);
  });
}

function frameAt(x, y) {
  var r = rows[Math.floor(y / ROW)];
  if (!r) return null;
  var lo = 0, hi = r.length - 1;
  while (lo <= hi) {  // frames of a row are placed left to right
    var mid = (lo + hi) >> 1, f = r[mid];
    if (x < f.x) hi = mid - 1; else if (x >= f.x + f.w) lo = mid + 1; else return f;
  }
  return null;
}

function zoomTo(n) {
  state.zoom = (n && n.parent) ? n : null;
  render();
}

// A tooltip is built from text nodes only: every name in it comes from the profiled program
// (scope, thread and node names), and text assigned as textContent can never become markup.
function tipElement(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  e.textContent = text;
  return e;
}
// parts: { title, rows: [[label, value], ...], notes: [...], hint }
function placeTip(parts, ev) {
  tip.replaceChildren(tipElement('b', '', parts.title));
  var table = document.createElement('table');
  parts.rows.forEach(function (r) {
    var tr = document.createElement('tr');
    tr.append(tipElement('td', '', r[0]), tipElement('td', '', r[1]));
    table.append(tr);
  });
  tip.append(table);
  (parts.notes || []).forEach(function (n) { tip.append(tipElement('div', 'note', n)); });
  if (parts.hint) tip.append(tipElement('div', 'hint', parts.hint));
  tip.style.display = 'block';
  var tw = tip.offsetWidth, th = tip.offsetHeight, x = ev.clientX + 14, y = ev.clientY + 14;
  if (x + tw > window.innerWidth - 4) x = Math.max(4, ev.clientX - tw - 14);
  if (y + th > window.innerHeight - 4) y = Math.max(4, ev.clientY - th - 14);
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
}

function showTip(f, ev) {
  var n = f.node, v = current(), rows = [];
  if (!n.parent) {
    rows.push([v.kind === 'merged' ? 'Wall time' : 'Time', fmtTime(n.total)]);
    rows.push(['Thread time', fmtTime(v.base)]);
  } else {
    rows.push(['Total', fmtTime(n.total)]);
    if (!n.synthetic) rows.push(['Self', fmtTime(n.self)]);
    rows.push(['Calls', fmtInt(n.count)]);
    if (n.parent.parent && !n.parent.synthetic && n.parent.total > 0) {
      if (n.total <= n.parent.total) rows.push(['% of parent', fmtPct(100 * n.total / n.parent.total)]);
      else rows.push(['vs parent', (n.total / n.parent.total).toFixed(2) + '\u00d7 its time (parallel)']);
    }
    if (v.base > 0) rows.push(['% of thread time', fmtPct(100 * n.total / v.base)]);
    if (!n.synthetic) rows.push(['Parallel', n.par ? 'yes (several threads or processes)' : 'no']);
  }
  var notes = [];
  if (f.scale < 0.9995) notes.push('Drawn at ' + fmtPct(100 * f.scale) +
    ' of its true width: parallel time here exceeds an enclosing frame (Width: thread time draws it unscaled).');
  placeTip({ title: n.name, rows: rows, notes: notes,
             hint: f.kind === 'ancestor' ? 'Click to zoom out to this frame' :
                   f.kind === 'zoom' ? 'Zoomed frame' : 'Click to zoom in' }, ev);
  hoverBox.style.display = 'block';
  hoverBox.style.left = (f.x - 1) + 'px'; hoverBox.style.top = (f.row * ROW - 1) + 'px';
  hoverBox.style.width = (f.w + 1) + 'px'; hoverBox.style.height = (ROW + 1) + 'px';
}

function hideTip() { tip.style.display = 'none'; hoverBox.style.display = 'none'; state.hover = null; }

function localXY(el, ev) { var r = el.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }

canvas.addEventListener('mousemove', function (ev) {
  var p = localXY(canvas, ev), f = frameAt(p[0], p[1]);
  if (!f) { hideTip(); return; }
  state.hover = f; showTip(f, ev);
});
canvas.addEventListener('mouseleave', hideTip);
canvas.addEventListener('click', function (ev) {
  var p = localXY(canvas, ev), f = frameAt(p[0], p[1]);
  if (!f) return;
  hideTip();
  zoomTo(f.kind === 'zoom' ? f.node.parent : f.node);
});
document.getElementById('reset').addEventListener('click', function () { zoomTo(null); });
document.addEventListener('keydown', function (ev) {
  if (ev.key === 'Escape') {
    if (document.activeElement === searchBox && searchBox.value) { searchBox.value = ''; setTerm(''); }
    else zoomTo(null);
  }
});

var pending = 0;
function setTerm(t) {
  state.term = t.trim().toLowerCase();
  if (!pending) pending = requestAnimationFrame(function () { pending = 0; render(); drawTimeline(); });
}
searchBox.addEventListener('input', function () { setTerm(searchBox.value); });

function fillTable() {
  var body = document.getElementById('top-self'), v = current();
  body.textContent = '';
  var maxSelf = v.top.length ? v.top[0].self : 0;
  v.top.forEach(function (e) {
    var tr = document.createElement('tr');
    tr.title = e.name + ': click to search';
    tr.innerHTML = '<td class="name"></td><td class="num"></td><td class="num"></td><td class="num"></td>';
    tr.children[0].textContent = e.name;
    var bar = document.createElement('div'); bar.className = 'bar';
    bar.style.width = (maxSelf > 0 ? 100 * e.self / maxSelf : 0) + '%';
    tr.children[0].appendChild(bar);
    tr.children[1].textContent = fmtTime(e.self);
    tr.children[2].textContent = fmtPct(v.base > 0 ? 100 * e.self / v.base : 0);
    tr.children[3].textContent = fmtInt(e.count);
    tr.addEventListener('click', function () { searchBox.value = e.name; setTerm(e.name); });
    body.appendChild(tr);
  });
  var many = v.kind !== 'thread' && threadCount > 1;
  document.getElementById('pct-head').textContent = '% of thread time';
  document.getElementById('base-note').textContent = '% is of this view\u2019s thread time, ' + fmtTime(v.base) + ': ' +
    (v.kind === 'thread' ? 'the time inside this thread\u2019s scopes' :
     many ? 'the time inside scopes summed over the ' + plural(threadCount, 'thread', 'threads') +
            ' (parallel work counts once per thread it ran on)' :
     'the time inside scopes, summed over the threads and processes that ran them') +
    ', each scope\u2019s own (self) time counted once, so no row passes 100 %.' +
    (v.kind === 'merged' && v.root.total > 0 ? ' Wall time of the run: ' + fmtTime(v.root.total) + '.' : '');
}

function widthNote() {
  document.getElementById('width-note').textContent = wallWidth() ?
    'Icicle chart: callers above callees, width = total time, children in first-seen order. Parallel time can exceed ' +
    'its caller\u2019s (like user vs. real time); where a frame\u2019s children add up to more than the frame, they are ' +
    'drawn scaled down together to fit inside it (the tooltip gives the scale). Width: thread time draws them unscaled.' :
    'Icicle chart, thread-time widths: a frame is as wide as the larger of its own total and its children\u2019s ' +
    'widths, so parallel work sits side by side at its own scale and nothing is scaled down.';
}

function setView(i) {
  state.view = i; state.zoom = null; viewSel.value = String(i);
  var v = current();
  var bits = [];
  if (v.kind === 'thread') bits.push('thread ' + v.label + (v.detail ? ' (' + v.detail + ')' : ''));
  if (threadCount > 0) bits.push(plural(threadCount, 'thread', 'threads'));
  if (views[0].root.total > 0 && views[0].kind === 'merged' && threadCount > 0) bits.push('wall ' + fmtTime(views[0].root.total));
  bits.push('thread time ' + fmtTime(v.base) + (v.kind === 'thread' ? '' : ' (all threads)'));
  bits.push(plural(v.nodes.length, 'frame', 'frames'));
  var s = document.getElementById('summary');
  s.textContent = bits.join(' \u00b7 ');
  if (v.dropped > 0) {
    var w = document.createElement('span'); w.className = 'warn';
    w.textContent = ' \u00b7 ' + fmtInt(v.dropped) + ' scopes dropped (ring full): times are lower bounds';
    s.appendChild(w);
  }
  fillTable();
  render();
}

document.getElementById('title').textContent = DATA.title || 'Flame graph';
document.getElementById('footer').textContent = 'Generated by ' + DATA.generator + '. Self-contained page: no network access.';
views.forEach(function (v, i) {
  var o = document.createElement('option'); o.value = String(i);
  o.textContent = (v.kind === 'thread' ? 'Thread: ' : '') + v.label + (v.detail ? ' (' + v.detail + ')' : '') +
    (v.dropped && v.kind === 'thread' ? ' \u2013 ' + fmtInt(v.dropped) + ' dropped' : '');
  viewSel.appendChild(o);
});
viewSel.disabled = views.length < 2;
viewSel.addEventListener('change', function () { setView(Number(viewSel.value)); });
widthSel.addEventListener('change', function () { state.width = widthSel.value; widthNote(); render(); });

// ---------------------------------------------------------------- the timeline
var tlCanvas = document.getElementById('timeline'), tlCtx = tlCanvas.getContext('2d');
var tlWrap = document.getElementById('tl-wrap');
var TL_GUTTER = 130, TL_AXIS = 22, TL_ROW = 13, TL_GAP = 8;
var tl = { t0: 0, t1: 1, lanes: [], util: [], drawn: 0, renderMs: 0, hits: [] };
var TL_UTIL = 9;
// 0 % pale, 100 % deep red, as smdebug's notebooks shade their heatmaps.
function heatColor(v) {
  var f = Math.max(0, Math.min(1, v / 100));
  return 'rgb(' + Math.round(255 - 40 * f) + ',' + Math.round(245 - 205 * f) + ',' + Math.round(235 - 205 * f) + ')';
}
if (TL) {
  document.getElementById('timeline-panel').style.display = 'flex';
  document.getElementById('chart-panel').style.flex = '0 0 auto';
  tl.t1 = Math.max(1, TL.duration);
  var y = TL_AXIS;
  tl.lanes = TL.lanes.map(function (l) {
    var maxDepth = 0, i;
    for (i = 0; i < l.k.length; i++) if (l.k[i] > maxDepth) maxDepth = l.k[i];
    var lane = { label: l.label, s: l.s, d: l.d, n: l.n, k: l.k, y: y, h: (maxDepth + 1) * TL_ROW };
    y += lane.h + TL_GAP;
    return lane;
  });
  // Utilization lanes under the threads: one row per core and GPU, a heatmap of its percent.
  if (TL.util && TL.util.length) y += TL_GAP;
  tl.util = (TL.util || []).map(function (u) {
    var lane = { label: u.label, t: u.t, v: u.v, y: y, h: TL_UTIL };
    y += TL_UTIL + 1;
    return lane;
  });
  tl.height = y;
  // The profiler rules' findings: a line each (text, never markup); a click shows its time range.
  (TL.findings || []).forEach(function (f) {
    var li = document.createElement('li');
    li.textContent = f.rule + ': node ' + f.node + (f.device ? ', ' + f.device : '') +
      (f.steps ? ', steps ' + f.steps : '') + ', ' + fmtTime(f.start * 1e-9) + ' to ' + fmtTime(f.end * 1e-9) + ': ' + f.what;
    li.addEventListener('click', function () {
      var pad = Math.max(1, (f.end - f.start) * 0.05);
      tlSet(f.start - pad, f.end + pad);
    });
    document.getElementById('tl-findings').appendChild(li);
  });
  var shown = 0;
  TL.lanes.forEach(function (l) { shown += l.s.length; });
  tl.spans = shown;
  document.getElementById('tl-note').textContent = plural(tl.lanes.length, 'thread', 'threads') + ', ' +
    plural(TL.steps.length, 'step', 'steps') + '; showing ' + TL.note + '.';
}

function tlX(t, W) { return TL_GUTTER + (t - tl.t0) * (W - TL_GUTTER) / (tl.t1 - tl.t0); }
function tlT(x, W) { return tl.t0 + (x - TL_GUTTER) * (tl.t1 - tl.t0) / (W - TL_GUTTER); }
function niceStep(range) {
  var raw = range / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
  return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

function drawTimeline() {
  if (!TL) return;
  var t0 = performance.now(), dpr = window.devicePixelRatio || 1, W = tlCanvas.clientWidth || 800;
  var H = Math.max(tl.height, tlWrap.clientHeight - 2);
  tlCanvas.style.height = H + 'px';
  tlCanvas.width = Math.round(W * dpr); tlCanvas.height = Math.round(H * dpr);
  var c = tlCtx, i, k;
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  c.clearRect(0, 0, W, H);
  c.font = FONT; c.textBaseline = 'middle';
  // Steps: alternating bands behind the lanes, numbered on the axis.
  // A worker's span labelled with a step may end after the next step began: a band ends where
  // the next step starts, so bands never overlap.
  TL.steps.forEach(function (st, j) {
    var end = j + 1 < TL.steps.length ? Math.min(st[2], TL.steps[j + 1][1]) : st[2];
    var x0 = Math.max(TL_GUTTER, tlX(st[1], W)), x1 = Math.min(W, tlX(end, W));
    if (x1 <= x0) return;
    c.fillStyle = j % 2 ? '#efe9f7' : '#f6f2fb';
    c.fillRect(x0, 0, x1 - x0, H);
    c.fillStyle = '#a99bc4'; c.fillRect(x0, 0, 1, H);
    var label = 'step ' + st[0];
    if (x1 - x0 > c.measureText(label).width + 6) { c.fillStyle = '#5b4a7a'; c.fillText(label, x0 + 3, 7); }
  });
  // Time axis.
  var step = niceStep(tl.t1 - tl.t0), t;
  c.fillStyle = '#656d76';
  for (t = Math.ceil(tl.t0 / step) * step; t <= tl.t1; t += step) {
    var x = tlX(t, W);
    c.fillRect(x, 14, 1, 6);
    c.fillText(fmtTime(t * 1e-9), x + 3, 17);
  }
  c.fillRect(TL_GUTTER, TL_AXIS - 1, W - TL_GUTTER, 1);
  var drawn = 0, searching = state.term !== '', hits = [];
  tl.lanes.forEach(function (l) {
    c.fillStyle = '#e5e1da'; c.fillRect(0, l.y + l.h + TL_GAP / 2, W, 1);
    var lastPx = [];
    for (i = 0; i < l.s.length; i++) {
      var s = l.s[i], e = s + l.d[i];
      if (e < tl.t0 || s > tl.t1) continue;
      var x0 = Math.max(TL_GUTTER, tlX(s, W)), x1 = Math.min(W, tlX(e, W)), depth = l.k[i];
      var px = Math.floor(x0);
      // Spans narrower than a pixel on a pixel already painted at that depth add nothing.
      if (x1 - x0 < 1 && lastPx[depth] === px) continue;
      lastPx[depth] = px;
      var name = DATA.names[l.n[i]], yy = l.y + depth * TL_ROW;
      c.fillStyle = searching ? (name.toLowerCase().indexOf(state.term) >= 0 ? '#c13fd0' : '#e7e3dd') : colorOf(name, false);
      c.fillRect(x0, yy, Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0)), TL_ROW - 1);
      drawn++;
      if (x1 - x0 > 2 && hits.length < 5000) hits.push({ lane: l, i: i, x: x0, w: x1 - x0, y: yy });
      if (x1 - x0 > 30) {
        var room = Math.floor((x1 - x0 - 6) / charW), label = name;
        if (label.length > room) label = room > 2 ? label.slice(0, room - 1) + '\u2026' : '';
        if (label) { c.fillStyle = '#1f1a14'; c.fillText(label, x0 + 3, yy + TL_ROW / 2); }
      }
    }
  });
  tl.util.forEach(function (u) {
    for (i = 0; i < u.t.length; i++) {
      // A sample holds until the next one (the last for as long as the one before it).
      var s = u.t[i], e = i + 1 < u.t.length ? u.t[i + 1] : s + (i > 0 ? s - u.t[i - 1] : 1);
      if (e < tl.t0 || s > tl.t1) continue;
      var x0 = Math.max(TL_GUTTER, tlX(s, W)), x1 = Math.min(W, tlX(e, W));
      c.fillStyle = heatColor(u.v[i]);
      c.fillRect(x0, u.y, Math.max(1, x1 - x0), TL_UTIL);
    }
  });
  // Lane names over a white gutter, so spans scrolled left of it do not show through.
  c.fillStyle = '#fff'; c.fillRect(0, TL_AXIS, TL_GUTTER - 2, H - TL_AXIS);
  tl.lanes.forEach(function (l) {
    c.fillStyle = '#1f2328';
    var label = l.label, room = Math.floor((TL_GUTTER - 10) / charW);
    if (label.length > room) label = label.slice(0, room - 1) + '\u2026';
    c.fillText(label, 4, l.y + TL_ROW / 2);
  });
  c.font = '9px ' + FONT.split(' ').slice(1).join(' ');
  tl.util.forEach(function (u) { c.fillStyle = '#1f2328'; c.fillText(u.label, 4, u.y + TL_UTIL / 2); });
  c.font = FONT;
  tl.drawn = drawn; tl.hits = hits;
  tl.renderMs = performance.now() - t0;
}

function tlZoom(factor, atX) {
  var W = tlCanvas.clientWidth, full = Math.max(1, TL.duration);
  var at = atX === undefined ? (tl.t0 + tl.t1) / 2 : tlT(atX, W);
  var range = Math.min(full, Math.max(1000, (tl.t1 - tl.t0) * factor));  // no closer than 1 us across
  var t0 = at - (at - tl.t0) * range / (tl.t1 - tl.t0);
  tlSet(t0, t0 + range);
}
function tlSet(t0, t1) {
  var full = Math.max(1, TL.duration), range = Math.min(full, t1 - t0);
  t0 = Math.max(0, Math.min(t0, full - range));
  tl.t0 = t0; tl.t1 = t0 + range;
  drawTimeline();
}
function tlHit(x, y) {
  for (var i = tl.hits.length - 1; i >= 0; i--) {
    var h = tl.hits[i];
    if (x >= h.x && x < h.x + h.w && y >= h.y && y < h.y + TL_ROW) return h;
  }
  return null;
}
if (TL) {
  tlCanvas.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    tlZoom(Math.exp(ev.deltaY * 0.002), localXY(tlCanvas, ev)[0]);
  }, { passive: false });
  var drag = null;
  tlCanvas.addEventListener('mousedown', function (ev) {
    drag = { x: ev.clientX, t0: tl.t0, t1: tl.t1, moved: false };
    tlCanvas.classList.add('dragging');
  });
  window.addEventListener('mouseup', function (ev) {
    if (!drag) return;
    var was = drag; drag = null;
    tlCanvas.classList.remove('dragging');
    if (was.moved) return;
    var p = localXY(tlCanvas, ev), h = tlHit(p[0], p[1]);
    if (!h) return;
    // A click zooms to the span, with a margin either side; on a span wider than the view
    // (an enclosing one), it zooms in around the click instead.
    var s = h.lane.s[h.i], d = Math.max(h.lane.d[h.i], 1000);
    if (d * 1.2 < tl.t1 - tl.t0) tlSet(s - d * 0.1, s + d * 1.1);
    else tlZoom(0.5, p[0]);
  });
  tlCanvas.addEventListener('mousemove', function (ev) {
    var W = tlCanvas.clientWidth;
    if (drag) {
      var dx = ev.clientX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      var dt = dx * (drag.t1 - drag.t0) / (W - TL_GUTTER);
      tlSet(drag.t0 - dt, drag.t1 - dt);
      hideTip();
      return;
    }
    var p = localXY(tlCanvas, ev), h = tlHit(p[0], p[1]);
    if (!h) { hideTip(); return; }
    var s = h.lane.s[h.i], d = h.lane.d[h.i], st = '';
    TL.steps.forEach(function (x) { if (s >= x[1] && s < x[2]) st = String(x[0]); });
    var rows = [['Thread', h.lane.label], ['Start', fmtTime(s * 1e-9)], ['Duration', fmtTime(d * 1e-9)], ['Depth', String(h.lane.k[h.i])]];
    if (st) rows.push(['Step', st]);
    placeTip({ title: DATA.names[h.lane.n[h.i]], rows: rows, hint: 'Click to zoom to this span' }, ev);
  });
  tlCanvas.addEventListener('mouseleave', hideTip);
  tlCanvas.addEventListener('dblclick', function () { tlSet(0, TL.duration); });
  document.getElementById('tl-in').addEventListener('click', function () { tlZoom(0.5); });
  document.getElementById('tl-out').addEventListener('click', function () { tlZoom(2); });
  document.getElementById('tl-fit').addEventListener('click', function () { tlSet(0, TL.duration); });
}

// ---------------------------------------------------------------- the steps view
// One row per node (host and process), one column per step, each cell coloured by the node's time
// in the step; the step's straggler outlined, outlier steps marked on the axis. The numbers come
// from the page's data as `ringprof steps --by node` computes them; nothing is derived here.
var ST = DATA.steps;
var stCanvas = document.getElementById('steps'), stCtx = stCanvas.getContext('2d');
var stWrap = document.getElementById('st-wrap');
var ST_GUTTER = 130, ST_AXIS = 20, ST_ROW = 18, ST_MARK = '#d1242f', ST_OUTLINE_MIN = 6, ST_BAR = 4;
var stView = { cells: [], lo: 0, hi: 0, renderMs: 0 };
if (ST) {
  document.getElementById('steps-panel').style.display = 'flex';
  stView.lo = Infinity; stView.hi = -Infinity;
  ST.steps.forEach(function (s) {
    s.us.forEach(function (u) { if (u !== null) { stView.lo = Math.min(stView.lo, u); stView.hi = Math.max(stView.hi, u); } });
  });
  var marked = ST.steps.filter(function (s) { return s.slowest >= 0; }).length;
  var outliers = ST.steps.filter(function (s) { return s.outlier; }).length;
  document.getElementById('st-note').textContent = plural(ST.nodes.length, 'node', 'nodes') + ', ' +
    plural(ST.steps.length, 'step', 'steps') + '; ' + plural(marked, 'step has a straggler', 'steps have a straggler') +
    ', ' + plural(outliers, 'outlier step', 'outlier steps') + '.';
}

// Light (shortest time of any node in any step) to dark (longest).
function stColor(us) {
  var f = stView.hi > stView.lo ? (us - stView.lo) / (stView.hi - stView.lo) : 0.5;
  var a = [227, 236, 247], b = [29, 79, 145];
  return 'rgb(' + a.map(function (v, i) { return Math.round(v + (b[i] - v) * f); }).join(',') + ')';
}

function drawSteps() {
  if (!ST) return;
  var t0 = performance.now(), dpr = window.devicePixelRatio || 1, W = stCanvas.clientWidth || 800;
  var H = ST_AXIS + ST.nodes.length * ST_ROW + 2;
  stCanvas.style.height = H + 'px';
  stCanvas.width = Math.round(W * dpr); stCanvas.height = Math.round(H * dpr);
  var c = stCtx, n = ST.steps.length, cw = (W - ST_GUTTER) / Math.max(1, n), cells = [];
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  c.clearRect(0, 0, W, H);
  c.font = FONT; c.textBaseline = 'middle';
  // Step numbers on the axis, as many as fit; outlier steps get an orange bar above their column.
  var every = Math.max(1, Math.ceil(c.measureText('0000000').width / cw));
  ST.steps.forEach(function (s, j) {
    var x = ST_GUTTER + j * cw;
    if (s.outlier) { c.fillStyle = '#e8590c'; c.fillRect(x, 0, Math.max(1, cw - 1), 4); }
    if (j % every === 0) { c.fillStyle = '#656d76'; c.fillText(String(s.step), x + 2, ST_AXIS / 2 + 2); }
  });
  ST.nodes.forEach(function (node, i) {
    var y = ST_AXIS + i * ST_ROW, label = node, room = Math.floor((ST_GUTTER - 10) / charW);
    if (label.length > room) label = label.slice(0, room - 1) + '\u2026';
    c.fillStyle = '#1f2328'; c.fillText(label, 4, y + ST_ROW / 2);
    ST.steps.forEach(function (s, j) {
      var x = ST_GUTTER + j * cw, w = Math.max(1, cw - (cw > 3 ? 1 : 0)), u = s.us[i];
      c.fillStyle = u === null ? '#f4f4f4' : stColor(u);
      c.fillRect(x, y, w, ST_ROW - 1);
      cells.push({ node: i, step: j, x: x, y: y, w: w, h: ST_ROW - 1 });
    });
  });
  // The stragglers last, so that no neighbour paints over their mark: an outline where a cell is
  // wide enough to hold one; where columns are narrower (hundreds of steps), outlines would cover
  // their neighbours, so a bar along the top of the cell marks it and its shade stays visible.
  c.strokeStyle = ST_MARK; c.fillStyle = ST_MARK; c.lineWidth = 2;
  var outline = cw >= ST_OUTLINE_MIN;
  ST.steps.forEach(function (s, j) {
    if (s.slowest < 0) return;
    var x = ST_GUTTER + j * cw, y = ST_AXIS + s.slowest * ST_ROW;
    if (outline) c.strokeRect(x + 1, y + 1, cw - 3, ST_ROW - 3);
    else c.fillRect(x, y, Math.max(1, cw), ST_BAR);
  });
  stView.cells = cells;
  stView.cw = cw;
  stView.renderMs = performance.now() - t0;
}

function stCellAt(x, y) {
  if (x < ST_GUTTER || y < ST_AXIS) return null;
  var j = Math.floor((x - ST_GUTTER) / stView.cw), i = Math.floor((y - ST_AXIS) / ST_ROW);
  if (j < 0 || j >= ST.steps.length || i < 0 || i >= ST.nodes.length) return null;
  return { node: i, step: j };
}

function stTip(cell, ev) {
  var s = ST.steps[cell.step], u = s.us[cell.node], m = s.others[cell.node];
  var rows = [['Step', String(s.step)], ['Node', ST.nodes[cell.node]]];
  if (u === null) rows.push(['Duration', 'no events in this step']);
  else {
    rows.push(['Duration', fmtTime(u * 1e-6)]);
    if (m !== null) {
      rows.push(['Median of the others', fmtTime(m * 1e-6)]);
      rows.push(['Ratio', m > 0 ? (u / m).toFixed(2) + '\u00d7 the median of the others' : '\u2013']);
    } else rows.push(['Ratio', 'the only node in this step']);
  }
  rows.push(['Step duration', fmtTime(s.duration * 1e-6)]);
  var notes = [];
  if (s.slowest === cell.node) notes.push('Straggler: the slowest node of this step');
  if (s.outlier) notes.push('Outlier step: longer than the median step + k\u00b7MAD');
  placeTip({ title: 'Step ' + String(s.step) + ' \u2013 ' + ST.nodes[cell.node], rows: rows, notes: notes }, ev);
}

if (ST) {
  stCanvas.addEventListener('mousemove', function (ev) {
    var p = localXY(stCanvas, ev), cell = stCellAt(p[0], p[1]);
    if (!cell) { hideTip(); return; }
    stTip(cell, ev);
  });
  stCanvas.addEventListener('mouseleave', hideTip);
}

var resizeQueued = 0;
window.addEventListener('resize', function () {
  if (resizeQueued) return;
  resizeQueued = requestAnimationFrame(function () { resizeQueued = 0; render(); drawTimeline(); drawSteps(); });
});

// For tests and scripting: where each frame was drawn, in page (client) coordinates.
window.ringprofFlame = {
  frames: function () {
    var r = canvas.getBoundingClientRect();
    return frames.map(function (f) {
      return { name: f.node.name, path: pathOf(f.node).map(function (n) { return n.name; }).join('/'),
               x: r.left + f.x, y: r.top + f.row * ROW, w: f.w, h: ROW - 1, kind: f.kind, match: matches(f.node) };
    });
  },
  state: function () {
    return { view: state.view, views: views.length, zoom: state.zoom ? pathOf(state.zoom).map(function (n) { return n.name; }).join('/') : '',
             term: state.term, matches: matchCount, renderMs: lastRenderMs, tip: tip.style.display === 'block' ? tip.textContent : '',
             width: state.width, base: current().base, threads: threadCount };
  },
  views: function () {
    return views.map(function (v) { return { label: v.label, kind: v.kind, base: v.base, total: v.root.total }; });
  },
  timeline: function () {
    if (!TL) return null;
    var r = tlCanvas.getBoundingClientRect();
    return { lanes: tl.lanes.map(function (l) { return l.label; }), spans: tl.spans, seen: TL.seen, steps: TL.steps.length,
             t0: tl.t0, t1: tl.t1, duration: TL.duration, drawn: tl.drawn, renderMs: tl.renderMs,
             x: r.left + TL_GUTTER, y: r.top, w: r.width - TL_GUTTER, h: r.height, dpr: window.devicePixelRatio || 1,
             util: tl.util.map(function (u) { return { label: u.label, y: r.top + u.y, h: TL_UTIL }; }),
             hits: tl.hits.slice(0, 200).map(function (h) {
               return { name: DATA.names[h.lane.n[h.i]], lane: h.lane.label, x: r.left + h.x, y: r.top + h.y, w: h.w, h: TL_ROW - 1,
                        start: h.lane.s[h.i], dur: h.lane.d[h.i] };
             }) };
  },
  // The steps view as drawn: each cell's node, step, time and place (page coordinates), and
  // which cell of each step is outlined as its straggler (null: none, or no view).
  steps: function () {
    if (!ST) return null;
    var r = stCanvas.getBoundingClientRect();
    return { nodes: ST.nodes, steps: ST.steps.map(function (s) { return s.step; }), renderMs: stView.renderMs,
             dpr: window.devicePixelRatio || 1, canvasX: r.left, canvasY: r.top, outlined: stView.cw >= ST_OUTLINE_MIN,
             marked: ST.steps.map(function (s) { return s.slowest >= 0 ? ST.nodes[s.slowest] : null; }),
             outliers: ST.steps.filter(function (s) { return s.outlier; }).map(function (s) { return s.step; }),
             cells: stView.cells.map(function (cell) {
               var s = ST.steps[cell.step];
               return { node: ST.nodes[cell.node], step: s.step, us: s.us[cell.node], others: s.others[cell.node],
                        x: r.left + cell.x, y: r.top + cell.y, w: cell.w, h: cell.h };
             }) };
  },
  setView: setView,
  search: function (t) { searchBox.value = t; state.term = t.trim().toLowerCase(); render(); drawTimeline(); }
};
widthNote();
setView(0);
drawTimeline();
drawSteps();
})();
