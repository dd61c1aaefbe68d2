"""The page's stylesheet and script, inlined: the report is one file that works offline, with no fetches.

The script only reads the embedded JSON and builds DOM with textContent; it never parses HTML.
"""

from __future__ import annotations

CSS = """
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;--card:#fff;--accent:#0b57d0;
--ok:#116329;--ok-bg:#dafbe1;--ko:#c4151c;--ko-bg:#ffebe9;--pa:#8a5300;--pa-bg:#fff4cc;
--na:#57606a;--na-bg:#eef1f4;--er:#fff;--er-bg:#6639ba;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:var(--bg);line-height:1.45;font-size:15px}
*{box-sizing:border-box}
body{margin:0}
code,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace;
font-size:.86em;word-break:break-all}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem;z-index:20}
.muted{color:var(--muted)}
.ko-text{color:var(--ko)}
header.top{background:#fff;border-bottom:1px solid var(--line);padding:.9rem 1.5rem}
header.top p{margin:0;color:var(--muted);font-size:.85rem;letter-spacing:.04em;text-transform:uppercase}
header.top h1{margin:.1rem 0 0;font-size:1.45rem}
main{padding:1.25rem 1.5rem 3rem;max-width:1500px;margin:0 auto;display:grid;gap:1.25rem}
.hero{display:grid;align-items:start;grid-template-columns:minmax(320px,1fr) minmax(320px,1fr);gap:1.25rem}
@media (max-width:900px){.hero{grid-template-columns:1fr}}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem 1.25rem}
h2{font-size:1.15rem;margin:0 0 .4rem}
h3{font-size:1rem;margin:1.1rem 0 .4rem}
h4{font-size:.92rem;margin:.9rem 0 .35rem}
.eyebrow{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;margin:0 0 .3rem;font-weight:600}
.hint{color:var(--muted);margin:.1rem 0 .7rem;font-size:.92rem}
.banner{margin:0;padding:.8rem 1rem;border-radius:10px;background:var(--pa-bg);color:#5c3b00;
border:2px solid #d4a72c;font-size:1.02rem}
.verdict{border-radius:10px;padding:1.1rem 1.4rem;color:#fff}
.verdict.pass{background:var(--ok)}
.verdict.blocked{background:var(--ko)}
.verdict-word{font-size:2.6rem;font-weight:800;margin:0;line-height:1.1}
.vsym{display:inline-block;width:1.15em}
.verdict-sub{margin:.35rem 0 .5rem;font-size:1.05rem}
.reasons{margin:.3rem 0 0;padding-left:1.2rem}
.reasons li{margin:.15rem 0}
.reasons-none{margin:.3rem 0 0}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
.kv dt{color:var(--muted)}
.kv dd{margin:0;min-width:0}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
thead th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);
border-bottom:2px solid var(--line)}
tbody th{font-weight:600}
th .muted{font-weight:400}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.ko>th:first-child{box-shadow:inset 4px 0 0 var(--ko)}
tr.ok>th:first-child{box-shadow:inset 4px 0 0 var(--ok)}
.st{display:inline-block;font-weight:700;border-radius:999px;padding:.05rem .55rem;white-space:nowrap}
.st.ok{background:var(--ok-bg);color:var(--ok)}
.st.ko{background:var(--ko-bg);color:var(--ko)}
.chips{display:flex;flex-wrap:wrap;gap:.25rem;margin-top:.35rem}
.chip{font-size:.8rem;border:1px solid var(--line);border-radius:6px;padding:0 .35rem;background:var(--bg);
text-decoration:none;color:var(--fg);font-family:ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace}
a.chip:hover{border-color:var(--accent)}
.bar{position:relative;height:.7rem;background:var(--na-bg);border-radius:999px;min-width:120px;
margin-top:.35rem;overflow:visible}
.bar .fill,.t-bar .fill{position:absolute;left:0;top:0;bottom:0;border-radius:999px}
.fill.ok{background:var(--ok)}
.fill.ko{background:var(--ko)}
.fill.neutral{background:var(--accent)}
.bar .thr,.t-bar .thr{position:absolute;top:-.2rem;bottom:-.2rem;width:3px;margin-left:-1px;
background:var(--fg);border-radius:2px}
.barcell{min-width:180px;width:28%}
.m{display:inline-block;min-width:1.55rem;text-align:center;border-radius:5px;padding:0 .2rem;font-weight:700;
font-size:.85rem;line-height:1.45rem}
.m.full{background:var(--ok-bg);color:var(--ok)}
.m.partial{background:var(--pa-bg);color:var(--pa)}
.m.failed{background:var(--ko-bg);color:var(--ko)}
.m.na{background:var(--na-bg);color:var(--na)}
.m.error{background:var(--er-bg);color:var(--er)}
.legend,.order{list-style:none;display:flex;flex-wrap:wrap;gap:.35rem 1rem;margin:.2rem 0 .6rem;padding:0;
font-size:.9rem}
.order{counter-reset:j;gap:.2rem .9rem;color:var(--muted)}
.order li{counter-increment:j}
.order li::before{content:counter(j) ". "}
.sec-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.3rem 1rem}
.sec-head h2{margin:0}
.sec-head .hint{margin:0;flex:1}
.filter{font-size:.92rem;white-space:nowrap}
.tiles{list-style:none;margin:0;padding:0;display:grid;gap:.6rem;
grid-template-columns:repeat(auto-fill,minmax(250px,1fr))}
/* Off-screen tiles skip layout and paint until scrolled near: a 300-ticket page opens faster. */
.tiles>li{content-visibility:auto;contain-intrinsic-size:auto 130px}
.tiles.only-failing>li.ok{display:none}
.tile{all:unset;box-sizing:border-box;display:flex;flex-direction:column;gap:.3rem;width:100%;height:100%;
cursor:pointer;background:#fff;border:1px solid var(--line);border-left:6px solid var(--ok);border-radius:8px;
padding:.55rem .65rem;font-size:.9rem}
.tile:hover{border-color:var(--accent)}
.tile:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.tile.ko{background:var(--ko-bg);border-left-color:var(--ko);border-color:#f1aeb5;border-left-width:6px}
.tile.err{background:#f1ebfb;border-left-color:var(--er-bg);border-color:#c8b3ef;border-left-width:6px}
.tile[aria-expanded=true]{outline:3px solid var(--accent);outline-offset:1px}
.t-top{display:flex;justify-content:space-between;gap:.5rem;align-items:baseline}
.t-id{font-weight:700;font-size:1rem}
.t-st{font-weight:700;font-size:.85rem;white-space:nowrap}
.tile.ok .t-st{color:var(--ok)}
.tile.ko .t-st{color:var(--ko)}
.tile.err .t-st{color:var(--er-bg)}
.t-score b{font-size:1.05rem}
.t-bar{position:relative;height:.45rem;background:rgba(87,96,106,.18);border-radius:999px}
.t-marks{display:grid;grid-template-columns:repeat(auto-fill,minmax(1.75rem,1fr));gap:.2rem}
.t-marks .m{display:flex;flex-direction:column;align-items:center;justify-content:center;height:2.2rem;
min-width:0;padding:0;line-height:1.05;font-size:.9rem}
.t-marks .m small{font-size:.68rem;font-weight:600}
.t-score{display:flex;justify-content:space-between;gap:.5rem;align-items:baseline}
.t-score .muted{font-size:.82rem}
.t-fails{font-size:.8rem;color:var(--ko);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.figs{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:1rem;margin-bottom:1rem}
@media (max-width:700px){.figs{grid-template-columns:1fr}}
.fig{border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem}
.fig p{margin:0}
.fig-name{font-weight:700}
.fig-value{font-size:1.8rem;font-weight:800;font-variant-numeric:tabular-nums}
.grid-wrap{max-height:32rem;overflow:auto}
.grid{width:auto}
.grid thead th{position:sticky;top:0;background:#fff}
.grid td.g{text-align:center;font-weight:700;padding:.2rem .5rem}
.grid td.ok{background:var(--ok-bg);color:var(--ok)}
.grid td.ko{background:var(--ko-bg);color:var(--ko)}
.grid td.err{background:var(--er-bg);color:var(--er)}
.grid th,.grid td{padding:.2rem .6rem}
.panel{position:fixed;top:0;right:0;bottom:0;width:min(780px,100vw);background:#fff;z-index:10;
border-left:1px solid var(--line);box-shadow:-10px 0 30px rgba(31,35,40,.18);overflow:auto}
.panel-head{position:sticky;top:0;background:#fff;display:flex;justify-content:space-between;align-items:center;
gap:1rem;padding:.8rem 1.25rem;border-bottom:1px solid var(--line);z-index:1}
.panel-head h2{margin:0;font-size:1.3rem}
#detail-title:focus{outline:none}
#detail-body{padding:.2rem 1.25rem 2rem}
.close{font:inherit;font-weight:600;background:#fff;border:1px solid var(--line);border-radius:6px;
padding:.3rem .7rem;cursor:pointer}
.close:hover{border-color:var(--accent)}
.d-status{margin:.8rem 0 .2rem;font-size:1.1rem;font-weight:700}
.d-status.ok{color:var(--ok)}
.d-status.ko{color:var(--ko)}
.d-status.err{color:var(--er-bg)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);border:1px solid var(--line);
border-radius:6px;padding:.6rem .8rem;font-size:.92rem;max-height:28rem;overflow:auto}
.rep{margin:.6rem 0}
details.rep{border:1px solid var(--line);border-radius:8px;padding:.3rem .8rem}
details.rep>summary{cursor:pointer;font-weight:600;padding:.3rem 0}
.rep-line{font-weight:600;margin:.6rem 0 .2rem}
.jt td,.jt th{font-size:.88rem;padding:.35rem .5rem}
.jt td:last-child{overflow-wrap:anywhere}
.key dd ul{margin:0;padding-left:1.1rem}
.pre{white-space:pre-wrap}
.traj{list-style:none;margin:.3rem 0;padding:0;border-left:3px solid var(--line)}
.traj>li{margin:0 0 .45rem;padding:.1rem 0 .1rem .7rem;position:relative}
.traj>li.s-tool::before,.traj>li.s-model::before,.traj>li.s-error::before{position:absolute;left:-.62rem;
top:.15rem;width:.9rem;text-align:center;background:#fff;font-size:.8rem}
.traj>li.s-model::before{content:"◆";color:var(--accent)}
.traj>li.s-tool::before{content:"▸";color:var(--muted)}
.traj>li.s-error::before,.traj>li.bad::before{content:"!";color:var(--ko);font-weight:700}
.talk{list-style:none;margin:.3rem 0;padding:0}
.talk>li{margin:0 0 .45rem;padding:.3rem .6rem;border-radius:6px;border:1px solid var(--line);max-width:92%}
.talk>li.by-agent{margin-left:8%;border-left:3px solid var(--accent)}
.talk>li.by-customer{border-left:3px solid var(--muted)}
.talk .st-head{font-size:.9rem}
.talk .st-when{color:var(--muted);font-size:.82rem;margin-left:.4rem}
.traj .st-head{font-size:.9rem}
.traj .st-head b{font-weight:600}
.traj .st-when{color:var(--muted);font-size:.82rem;margin-left:.4rem}
.traj li.bad .st-head b,.traj li.s-error .st-head b{color:var(--ko)}
.traj .text{font-size:.85rem;max-height:14rem;margin-top:.2rem}
.traj details>summary{cursor:pointer;color:var(--muted);font-size:.85rem}
noscript p{margin:0;color:var(--muted)}
footer{color:var(--muted);font-size:.85rem;text-align:center;padding:0 1rem 2rem}
@media print{.panel,.filter{display:none}.tile{break-inside:avoid}}
"""

JS = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("assay-data").textContent);
  var panel = document.getElementById("detail");
  var body = document.getElementById("detail-body");
  var heading = document.getElementById("detail-title");
  var current = -1;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function text(value, empty) {
    var missing = value === null || value === undefined || value === "";
    return missing ? el("p", "muted", empty) : el("div", "text", value);
  }

  function judgesTable(rep) {
    var table = el("table", "jt");
    var head = add(add(table, el("thead")), el("tr"));
    ["Judge", "Mark", "Score", "Reason"].forEach(function (name) {
      add(head, el("th", name === "Score" ? "n" : null, name)).scope = "col";
    });
    var rows = add(table, el("tbody"));
    rep.j.forEach(function (j, n) {
      var tr = add(rows, el("tr"));
      add(tr, el("th", null, data.judges[n])).scope = "row";
      var mark = add(add(tr, el("td")), el("span", "m " + j[0], j[1]));
      mark.title = j[2];
      add(mark, el("span", "sr", " " + j[2]));
      add(tr, el("td", "n", j[3]));
      var why = add(tr, el("td"));
      if (j[4]) add(why, el("div", null, j[4]));
      if (j[6]) add(why, el("div", "muted", j[6]));
      if (j[5]) add(why, el("div", "ko-text", "! error: " + j[5]));
    });
    return table;
  }

  function keyList(rows) {
    if (!rows.length) return el("p", "muted", "No answer key recorded.");
    var dl = el("dl", "kv key");
    rows.forEach(function (row) {
      add(dl, el("dt", null, row[0]));
      var dd = add(dl, el("dd"));
      if (Array.isArray(row[1])) {
        var ul = add(dd, el("ul"));
        row[1].forEach(function (item) { add(ul, el("li", null, item)); });
      } else {
        add(dd, el("span", "pre", row[1]));
      }
    });
    return dl;
  }

  function trajectory(tj) {
    var wrap = el("section", "trajectory");
    add(wrap, el("h4", null, "Trajectory"));
    add(wrap, el("p", "muted", tj.sum));
    add(wrap, steps(tj.steps));
    return wrap;
  }

  function steps(all) {
    var list = el("ol", "traj");
    all.forEach(function (s) {
      var item = add(list, el("li", "s-" + s[0] + (s[1] ? "" : " bad")));
      var head = add(item, el("div", "st-head"));
      add(head, el("b", null, (s[1] ? "" : "✘ ") + s[2]));
      if (s[3]) add(head, el("span", "st-when", s[3]));
      if (s[0] === "tool") {
        if (s[5]) add(item, el("div", "muted mono", s[5]));
        var result = add(item, el("details"));
        add(result, el("summary", null, s[1] ? "Result" : "Error"));
        add(result, text(s[4], "(empty)"));
      } else if (s[4]) {
        add(item, el("div", "text", s[4]));
      }
    });
    return list;
  }

  function conversation(cv) {
    var wrap = el("section", "conversation");
    add(wrap, el("h4", null, "Conversation"));
    add(wrap, el("p", cv.ok ? "muted" : "ko-text", cv.sum));
    var list = add(wrap, el("ol", "talk"));
    cv.turns.forEach(function (t) {
      var item = add(list, el("li", "by-" + t[0]));
      var head = add(item, el("div", "st-head"));
      add(head, el("b", null, (t[0] === "agent" ? "Agent" : "Customer") + " · turn " + t[1]));
      if (t[3]) add(head, el("span", "st-when", t[3]));
      if (t[4]) add(head, el("span", "st-when", t[4]));
      add(item, el("div", "text", t[2]));
      if (t[5]) {  // an agent turn's own steps
        var own = add(item, el("details", "turn-steps"));
        add(own, el("summary", null, "Steps · " + t[5].sum));
        add(own, steps(t[5].steps));
      }
    });
    return wrap;
  }

  function repetition(rep, open) {
    var line = "Repetition " + rep.n + " — " + (rep.ok ? "✔ passes" : "✘ does not pass") +
      " — score " + rep.score + (rep.exit === null ? "" : " — exit code " + rep.exit);
    var box;
    if (data.k > 1) {
      box = el("details", "rep");
      box.open = open;
      add(box, el("summary", null, line));
    } else {
      box = el("div", "rep");
      add(box, el("p", "rep-line", line));
    }
    if (rep.err) add(box, el("p", "ko-text", "! " + rep.err));
    add(box, el("h4", null, "Answer"));
    add(box, text(rep.a, "No answer recorded."));
    add(box, el("h4", null, "Judges"));
    add(box, judgesTable(rep));
    if (rep.cv) add(box, conversation(rep.cv));
    if (rep.tj) add(box, trajectory(rep.tj));
    if (rep.tr) {
      var tr = add(box, el("details"));
      add(tr, el("summary", null, "Transcript (tail)"));
      add(tr, el("div", "text mono", rep.tr));
    }
    return box;
  }

  function render(i) {
    var t = data.tickets[i];
    heading.textContent = "Ticket " + t.id;
    body.textContent = "";
    add(body, el("p", "d-status " + t.cls, t.st));
    add(body, el("p", "muted", t.split + " · score " + t.score + " · floor " + data.floor +
      (data.k > 1 ? " · mean of " + data.k + " repetitions" : "")));
    add(body, el("h3", null, "Question"));
    add(body, text(t.q, "No question recorded."));
    add(body, el("h3", null, data.k > 1 ? "Repetitions" : "Answer and judges"));
    if (t.missing) add(body, el("p", "ko-text", "! " + t.missing + " repetition(s) missing"));
    var firstBad = t.reps.findIndex(function (r) { return !r.ok; });
    t.reps.forEach(function (rep, n) { add(body, repetition(rep, n === (firstBad < 0 ? 0 : firstBad))); });
    add(body, el("h3", null, "Answer key"));
    add(body, keyList(t.key));
  }

  function mark(i, on) {
    var tile = document.getElementById("tile-" + i);
    if (tile) tile.setAttribute("aria-expanded", on ? "true" : "false");
    return tile;
  }
  function open(i) {
    if (current >= 0) mark(current, false);
    current = i;
    render(i);
    mark(i, true);
    panel.hidden = false;
    panel.scrollTop = 0;
    heading.focus();
  }
  function close() {
    if (current < 0) return;
    panel.hidden = true;
    var tile = mark(current, false);
    current = -1;
    if (tile) tile.focus();
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-i]");
    if (target) {
      event.preventDefault();
      var i = Number(target.getAttribute("data-i"));
      if (i === current && target.classList.contains("tile")) close(); else open(i);
    } else if (event.target.closest("[data-close]")) {
      close();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && current >= 0) close();
  });
  var only = document.getElementById("only-failing");
  if (only) only.addEventListener("change", function () {
    document.getElementById("tiles").classList.toggle("only-failing", only.checked);
  });
})();
"""
