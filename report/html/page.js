// report.html's script: draws the treemap from the JSON beside it, zooms
// on click or Enter, and sorts the tables by a column. The page reads
// without it; nothing here loads anything.
(function () {
  "use strict";

  var fmt = function (n) { return n.toLocaleString("en-US"); };

  // squarify lays out values (largest first) in the rectangle x,y,w,h so
  // cells stay close to square (Bruls, Huizing, van Wijk).
  function squarify(values, x, y, w, h) {
    var total = 0, i;
    for (i = 0; i < values.length; i++) total += values[i];
    var out = [];
    if (total <= 0 || w <= 0 || h <= 0) {
      for (i = 0; i < values.length; i++) out.push({x: x, y: y, w: 0, h: 0});
      return out;
    }
    var scale = w * h / total, areas = values.map(function (v) { return v * scale; });
    var row = [], start = 0;
    function worst(r, side) {
      var s = 0, mx = 0, mn = Infinity;
      for (var k = 0; k < r.length; k++) { s += r[k]; mx = Math.max(mx, r[k]); mn = Math.min(mn, r[k]); }
      if (s <= 0 || mn <= 0) return Infinity;
      return Math.max(side * side * mx / (s * s), s * s / (side * side * mn));
    }
    function place(r) {
      var s = 0, k;
      for (k = 0; k < r.length; k++) s += r[k];
      if (w >= h) {
        var cw = h > 0 ? s / h : 0, cy = y;
        for (k = 0; k < r.length; k++) { var ch = cw > 0 ? r[k] / cw : 0; out.push({x: x, y: cy, w: cw, h: ch}); cy += ch; }
        x += cw; w -= cw;
      } else {
        var rh = w > 0 ? s / w : 0, cx = x;
        for (k = 0; k < r.length; k++) { var rw = rh > 0 ? r[k] / rh : 0; out.push({x: cx, y: y, w: rw, h: rh}); cx += rw; }
        y += rh; h -= rh;
      }
    }
    for (i = 0; i < areas.length; i++) {
      var side = Math.min(w, h);
      if (row.length === 0 || worst(row.concat([areas[i]]), side) <= worst(row, side)) {
        row.push(areas[i]);
      } else {
        place(row);
        row = [areas[i]];
      }
    }
    if (row.length) place(row);
    return out;
  }

  function drawTreemap() {
    var svg = document.getElementById("treemap");
    var holder = document.getElementById("treemap-data");
    if (!svg || !holder) return;
    var root = JSON.parse(holder.textContent);
    var up = document.getElementById("treemap-up");
    var where = document.getElementById("treemap-path");
    var ns = svg.namespaceURI;
    var stack = [root];

    function label(n) { return n.n === "" ? "other" : n.n + (n.d ? "/" : ""); }
    function pathOf() {
      return stack.map(function (n) { return n.n; }).join("/");
    }
    function el(name, attrs, parent) {
      var e = document.createElementNS(ns, name);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      parent.appendChild(e);
      return e;
    }
    function zoom(n) {
      stack.push(n);
      render(true);
    }

    function render(focusFirst) {
      var cur = stack[stack.length - 1];
      var W = Math.max(svg.clientWidth || 0, 200), H = Math.max(svg.clientHeight || 0, 150);
      svg.setAttribute("viewBox", "0 0 " + W + " " + H);
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var cells = cur.c && cur.c.length ? cur.c.slice() : [cur];
      var shown = cells.filter(function (n) { return n.t > 0; });
      if (shown.length === 0) shown = cells; // nothing staged has tokens: equal cells
      var all = shown.every(function (n) { return n.t <= 0; });
      var rects = squarify(shown.map(function (n) { return all ? 1 : n.t; }), 0, 0, W, H);
      var total = cur.t;
      var first = null;
      shown.forEach(function (n, i) {
        var r = rects[i];
        var share = total > 0 ? (100 * n.t / total).toFixed(1) + "%" : "";
        var name = label(n);
        var canZoom = n !== cur && n.c && n.c.length > 0;
        var desc = name + ": " + fmt(n.t) + " tokens in " + fmt(n.f) + (n.f === 1 ? " file" : " files") + (share ? ", " + share : "") + (canZoom ? "; press Enter to zoom in" : "");
        var g = el("g", {}, svg);
        var rect = el("rect", {
          x: r.x.toFixed(1), y: r.y.toFixed(1), width: Math.max(r.w, 0).toFixed(1), height: Math.max(r.h, 0).toFixed(1),
          "class": "c" + (i % 8) + (canZoom ? " zoom" : ""), tabindex: "0",
          role: canZoom ? "button" : "img", "aria-label": desc
        }, g);
        el("title", {}, rect).textContent = desc;
        if (canZoom) {
          rect.addEventListener("click", function () { zoom(n); });
          rect.addEventListener("keydown", function (ev) {
            if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); zoom(n); }
          });
        }
        if (r.w > 46 && r.h > 18) {
          var max = Math.floor((r.w - 8) / 7);
          var text = name.length > max ? name.slice(0, Math.max(max - 1, 1)) + "\u2026" : name;
          el("text", {x: (r.x + 4).toFixed(1), y: (r.y + 15).toFixed(1), "aria-hidden": "true"}, g).textContent = text;
          var sub = fmt(n.t) + " tokens";
          if (sub.length > max) sub = fmt(n.t);
          if (r.h > 34 && sub.length <= max) {
            el("text", {x: (r.x + 4).toFixed(1), y: (r.y + 30).toFixed(1), "class": "sub", "aria-hidden": "true"}, g).textContent = sub;
          }
        }
        if (!first) first = rect;
      });
      up.disabled = stack.length <= 1;
      where.textContent = pathOf() + ": " + fmt(cur.t) + " tokens";
      if (focusFirst && first) first.focus();
    }

    up.addEventListener("click", function () {
      if (stack.length > 1) { stack.pop(); render(true); }
    });
    var pending = 0;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(function () { render(false); }, 150);
    });
    render(false);
  }

  // sortable makes each column header of the data tables a button that
  // sorts the rows by that column: figures by their value, words by text.
  function sortable() {
    var tables = document.querySelectorAll("table.data");
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.tHead ? table.tHead.rows[0].cells : [];
      Array.prototype.forEach.call(heads, function (th, col) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = th.textContent;
        th.textContent = "";
        th.appendChild(b);
        b.addEventListener("click", function () {
          var desc = th.getAttribute("aria-sort") !== "descending";
          Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", desc ? "descending" : "ascending");
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          var key = function (tr) {
            var c = tr.cells[col], d = c && c.querySelector("data");
            return d ? parseFloat(d.getAttribute("value")) : (c ? c.textContent : "");
          };
          rows.sort(function (a, z) {
            var x = key(a), y = key(z), r = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
            return desc ? -r : r;
          });
          rows.forEach(function (tr) { body.appendChild(tr); });
        });
      });
    });
  }

  function start() {
    try {
      sortable();
      drawTreemap();
    } finally {
      document.documentElement.dataset.ready = "1";
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
