// Everything the page needs is here, inline: the report must open from a file, offline.
#include "flame/html_assets.hpp"

namespace ringprof::flame_detail {

std::string_view html_page_head() {
    return R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>)PAGE";
}

std::string_view html_page_body() {
    return R"PAGE(</title>
<style>
:root { --bg:#fbfaf7; --panel:#ffffff; --ink:#1f2328; --muted:#656d76; --line:#d8dee4; --accent:#7b2fbf; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font:14px/1.4 "DejaVu Sans", system-ui, -apple-system, "Segoe UI", sans-serif; }
header { padding:14px 20px 10px; border-bottom:1px solid var(--line); background:var(--panel); }
header h1 { margin:0; font-size:18px; font-weight:600; }
header .summary { color:var(--muted); margin-top:3px; font-size:13px; }
header .warn { color:#b42318; font-weight:600; }
.controls { display:flex; flex-wrap:wrap; gap:10px; align-items:center; padding:10px 20px;
  background:var(--panel); border-bottom:1px solid var(--line); position:sticky; top:0; z-index:5; }
.controls label { color:var(--muted); font-size:13px; }
select, input[type=search], button { font:inherit; font-size:13px; padding:5px 8px; border:1px solid var(--line);
  border-radius:6px; background:#fff; color:var(--ink); }
input[type=search] { width:240px; }
button { cursor:pointer; } button:hover { background:#f3f4f6; } button:disabled { cursor:default; opacity:.5; }
#match-info { color:var(--accent); font-size:13px; min-width:10px; }
#crumbs { flex-basis:100%; font-size:13px; color:var(--muted); overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
#crumbs a { color:#0969da; cursor:pointer; text-decoration:none; } #crumbs a:hover { text-decoration:underline; }
main { display:flex; gap:16px; padding:14px 20px 20px; align-items:flex-start; }
#chart-panel { flex:1 1 auto; min-width:0; background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:8px; }
#chart-wrap { position:relative; }
#chart { display:block; width:100%; cursor:pointer; }
#hover-box { position:absolute; pointer-events:none; border:2px solid #111; border-radius:2px; display:none; }
#empty { color:var(--muted); padding:30px; text-align:center; display:none; }
aside { flex:0 0 330px; background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
aside h2 { font-size:14px; margin:2px 0 8px; }
table { border-collapse:collapse; width:100%; font-size:12.5px; }
th { text-align:left; color:var(--muted); font-weight:600; border-bottom:1px solid var(--line); padding:3px 4px; }
th.num, td.num { text-align:right; white-space:nowrap; }
td { padding:3px 4px; border-bottom:1px solid #eef0f2; }
td.name { max-width:170px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
tbody tr { cursor:pointer; } tbody tr:hover { background:#f6f3fb; }
.bar { height:4px; background:#e46a2e; border-radius:2px; margin-top:2px; }
.legend { display:flex; flex-wrap:wrap; gap:6px 16px; font-size:12.5px; color:var(--muted); margin:8px 2px 2px; }
.legend .sw { display:inline-block; width:12px; height:12px; border-radius:2px; vertical-align:-2px; margin-right:5px; }
.legend p { margin:4px 0 0; flex-basis:100%; }
#tip { position:fixed; z-index:10; pointer-events:none; display:none; max-width:420px; background:#1f2328; color:#fff;
  border-radius:6px; padding:8px 10px; font-size:12.5px; box-shadow:0 4px 14px rgba(0,0,0,.25); }
#tip b { display:block; font-size:13px; margin-bottom:4px; word-break:break-all; }
#tip table { font-size:12.5px; width:auto; } #tip td { border:0; padding:1px 10px 1px 0; color:#fff; }
#tip td:first-child { color:#aab2bd; } #tip .note { color:#ffd58a; margin-top:4px; } #tip .hint { color:#aab2bd; margin-top:4px; }
footer { color:var(--muted); font-size:12px; padding:0 20px 16px; }
@media (max-width: 900px) { main { flex-direction:column; } aside { flex-basis:auto; width:100%; } }
</style>
</head>
<body>
<header>
  <h1 id="title">Flame graph</h1>
  <div class="summary" id="summary"></div>
</header>
<div class="controls">
  <label for="view">View</label>
  <select id="view"></select>
  <input type="search" id="search" placeholder="Search frames (substring)" autocomplete="off" spellcheck="false">
  <span id="match-info"></span>
  <button id="reset" type="button" title="Show the whole tree (Esc)">Reset zoom</button>
  <div id="crumbs"></div>
</div>
<main>
  <section id="chart-panel">
    <div id="chart-wrap"><canvas id="chart"></canvas><div id="hover-box"></div></div>
    <div id="empty">No time recorded in this view.</div>
    <div class="legend">
      <span><span class="sw" style="background:rgb(240,150,55)"></span>ran on one thread</span>
      <span><span class="sw" style="background:rgb(95,175,230)"></span>parallel: several threads or processes</span>
      <span><span class="sw" style="background:#c13fd0"></span>search match</span>
      <span><span class="sw" style="background:#d9d4cc"></span>enclosing frames of the zoomed one (click to zoom out)</span>
      <p>Icicle chart: callers above callees, width = total time, children in first-seen order. Parallel time can
      exceed its parent's (like user vs. real time); where a frame's children add up to more than the frame, they
      are drawn scaled down together to fit inside it, and the tooltip shows the real numbers and the scale.
      Click a frame to zoom in; click an enclosing frame, a breadcrumb or press Esc to zoom out.</p>
    </div>
  </section>
  <aside>
    <h2>Top self time</h2>
    <table>
      <thead><tr><th>Name</th><th class="num">Self</th><th class="num">%</th><th class="num">Calls</th></tr></thead>
      <tbody id="top-self"></tbody>
    </table>
  </aside>
</main>
<footer id="footer"></footer>
<div id="tip"></div>
)PAGE";
}

std::string_view html_page_script() {
    return R"PAGE((function () {
'use strict';
var DATA = JSON.parse(document.getElementById('flame-data').textContent);
var ROW = 18, MIN_PX = 0.35;
var canvas = document.getElementById('chart'), ctx = canvas.getContext('2d');
var tip = document.getElementById('tip'), hoverBox = document.getElementById('hover-box');
var searchBox = document.getElementById('search'), viewSel = document.getElementById('view');
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

// Same FNV-1a hash and colour ramps as the SVG output, so a name looks alike in both.
var encoder = new TextEncoder();
function colorOf(name, par) {
  var bytes = encoder.encode(name), h = 2166136261, i;
  for (i = 0; i < bytes.length; i++) { h ^= bytes[i]; h = Math.imul(h, 16777619) >>> 0; }
  var a = (h & 0xffff) / 65535, b = (h >>> 16) / 65535;
  if (par) return 'rgb(' + (70 + (50 * a | 0)) + ',' + (150 + (50 * b | 0)) + ',' + (215 + (30 * a | 0)) + ')';
  return 'rgb(' + (225 + (30 * b | 0)) + ',' + (100 + (110 * a | 0)) + ',' + (40 + (40 * b | 0)) + ')';
}

function buildView(v) {
  var n = v.n.length, nodes = new Array(n), i;
  for (i = 0; i < n; i++) {
    var p = v.p[i] < 0 ? null : nodes[v.p[i]];
    var node = { id: i, name: DATA.names[v.n[i]], total: v.t[i], count: v.c[i], par: v.f[i] === 1,
                 parent: p, kids: [], depth: p ? p.depth + 1 : 0 };
    nodes[i] = node;
    if (p) p.kids.push(node);
  }
  for (i = 0; i < n; i++) {
    var s = 0, k;
    for (k = 0; k < nodes[i].kids.length; k++) s += nodes[i].kids[k].total;
    nodes[i].self = Math.max(0, nodes[i].total - s);
    nodes[i].span = Math.max(nodes[i].total, s);
  }
  var bySelf = {}, top = [];
  for (i = 0; i < n; i++) {
    var e = bySelf[nodes[i].name];
    if (!e) { e = bySelf[nodes[i].name] = { name: nodes[i].name, self: 0, count: 0 }; top.push(e); }
    e.self += nodes[i].self; e.count += nodes[i].count;
  }
  top = top.filter(function (e) { return e.self > 0; });
  top.sort(function (x, y) { return y.self - x.self; });
  return { label: v.label, dropped: v.dropped, nodes: nodes, root: nodes[0], top: top.slice(0, 15) };
}

var views = DATA.views.map(buildView);
var state = { view: 0, zoom: null, term: '', hover: null };
var frames = [], rows = [], lastRenderMs = 0, matchCount = 0, matchTime = 0, charW = 7;

function current() { return views[state.view]; }
function matches(node) { return state.term !== '' && node.name.toLowerCase().indexOf(state.term) >= 0; }

function layout() {
  var v = current(), z = state.zoom || v.root, W = canvas.clientWidth, out = [], anc = [], a;
  for (a = z.parent; a; a = a.parent) anc.unshift(a);
  anc.forEach(function (n, d) { out.push({ node: n, x: 0, w: W, row: d, kind: 'ancestor', scale: 1 }); });
  var base = anc.length;
  function place(node, x, w, scale, kind) {
    out.push({ node: node, x: x, w: w, row: base + node.depth - z.depth, kind: kind, scale: scale });
    if (node.span <= 0) return;
    var cx = x, k, childScale = scale * (node.total < node.span ? node.total / node.span : 1);
    for (k = 0; k < node.kids.length; k++) {
      var c = node.kids[k], cw = w * c.total / node.span;
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
  for (var i = v.nodes.length - 1; i >= 0; i--) {  // preorder reversed: children before parents
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

function updateSearchInfo() {
  var info = document.getElementById('match-info'), v = current();
  matchCount = 0; matchTime = 0;
  if (state.term === '') { info.textContent = ''; return; }
  var z = state.zoom || v.root;
  (function walk(n, covered) {
    var m = matches(n);
    if (m) { matchCount++; if (!covered) matchTime += n.total; }
    for (var k = 0; k < n.kids.length; k++) walk(n.kids[k], covered || m);
  })(z, false);
  info.textContent = matchCount === 0 ? 'no match' :
    fmtInt(matchCount) + (matchCount === 1 ? ' frame' : ' frames') + ', ' + fmtTime(matchTime) +
    (z.total > 0 ? ' (' + fmtPct(100 * matchTime / z.total) + ' of ' + (state.zoom ? 'zoomed frame' : 'view') + ')' : '');
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

function esc(s) { return s.replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }

function showTip(f, ev) {
  var n = f.node, v = current(), rows = [];
  rows.push(['Total', fmtTime(n.total)]);
  rows.push(['Self', fmtTime(n.self)]);
  rows.push(['Calls', fmtInt(n.count)]);
  if (n.parent) rows.push(['% of parent', n.parent.total > 0 ? fmtPct(100 * n.total / n.parent.total) : '\u2013']);
  if (v.root.total > 0) rows.push(['% of view', fmtPct(100 * n.total / v.root.total)]);
  rows.push(['Parallel', n.par ? 'yes (several threads or processes)' : 'no']);
  var html = '<b>' + esc(n.name) + '</b><table>' + rows.map(function (r) {
    return '<tr><td>' + r[0] + '</td><td>' + esc(r[1]) + '</td></tr>'; }).join('') + '</table>';
  if (f.scale < 0.9995) html += '<div class="note">Drawn at ' + fmtPct(100 * f.scale) +
    ' of its true width: parallel time here exceeds an enclosing frame.</div>';
  html += '<div class="hint">' + (f.kind === 'ancestor' ? 'Click to zoom out to this frame' :
    f.kind === 'zoom' ? 'Zoomed frame' : 'Click to zoom in') + '</div>';
  tip.innerHTML = html;
  tip.style.display = 'block';
  var tw = tip.offsetWidth, th = tip.offsetHeight, x = ev.clientX + 14, y = ev.clientY + 14;
  if (x + tw > window.innerWidth - 4) x = Math.max(4, ev.clientX - tw - 14);
  if (y + th > window.innerHeight - 4) y = Math.max(4, ev.clientY - th - 14);
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
  hoverBox.style.display = 'block';
  hoverBox.style.left = (f.x - 1) + 'px'; hoverBox.style.top = (f.row * ROW - 1) + 'px';
  hoverBox.style.width = (f.w + 1) + 'px'; hoverBox.style.height = (ROW + 1) + 'px';
}

function hideTip() { tip.style.display = 'none'; hoverBox.style.display = 'none'; state.hover = null; }

function localXY(ev) { var r = canvas.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }

canvas.addEventListener('mousemove', function (ev) {
  var p = localXY(ev), f = frameAt(p[0], p[1]);
  if (!f) { hideTip(); return; }
  state.hover = f; showTip(f, ev);
});
canvas.addEventListener('mouseleave', hideTip);
canvas.addEventListener('click', function (ev) {
  var p = localXY(ev), f = frameAt(p[0], p[1]);
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
  if (!pending) pending = requestAnimationFrame(function () { pending = 0; render(); });
}
searchBox.addEventListener('input', function () { setTerm(searchBox.value); });

function fillTable() {
  var body = document.getElementById('top-self'), v = current(), total = v.root.total;
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
    tr.children[2].textContent = total > 0 ? fmtPct(100 * e.self / total) : '\u2013';
    tr.children[3].textContent = fmtInt(e.count);
    tr.addEventListener('click', function () { searchBox.value = e.name; setTerm(e.name); });
    body.appendChild(tr);
  });
}

function setView(i) {
  state.view = i; state.zoom = null; viewSel.value = String(i);
  var v = current();
  var bits = ['total ' + fmtTime(v.root.total), fmtInt(v.nodes.length) + ' frames'];
  if (views.length > 1) bits.push(fmtInt(views.length - 1) + (views.length === 2 ? ' thread' : ' threads'));
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
  o.textContent = v.label + (v.dropped ? ' (' + fmtInt(v.dropped) + ' dropped)' : ''); viewSel.appendChild(o);
});
viewSel.disabled = views.length < 2;
viewSel.addEventListener('change', function () { setView(Number(viewSel.value)); });
var resizeQueued = 0, lastWidth = 0;
window.addEventListener('resize', function () {
  if (resizeQueued) return;
  resizeQueued = requestAnimationFrame(function () {
    resizeQueued = 0;
    if (canvas.clientWidth !== lastWidth) { lastWidth = canvas.clientWidth; render(); }
  });
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
             term: state.term, matches: matchCount, renderMs: lastRenderMs, tip: tip.style.display === 'block' ? tip.textContent : '' };
  },
  setView: setView,
  search: function (t) { searchBox.value = t; state.term = t.trim().toLowerCase(); render(); }
};
setView(0);
lastWidth = canvas.clientWidth;
})();
)PAGE";
}

}  // namespace ringprof::flame_detail
