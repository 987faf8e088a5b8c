// Filters the findings by kind and rank, and zooms the drawings.
(function () {
  "use strict";
  var kind = document.getElementById("kind-filter");
  var rank = document.getElementById("rank-filter");
  function filter() {
    var k = kind ? kind.value : "", r = rank ? rank.value.trim() : "";
    var n = 0, all = document.querySelectorAll(".finding-row, article.finding");
    all.forEach(function (el) {
      var ok = (k === "" || el.dataset.kind === k) && (r === "" || el.dataset.ranks.indexOf(" " + r + " ") >= 0);
      el.style.display = ok ? "" : "none";
      if (ok && el.tagName === "TR") { n++; }
    });
    var shown = document.getElementById("shown");
    if (shown) { shown.textContent = n + " shown"; }
  }
  if (kind) { kind.addEventListener("change", filter); }
  if (rank) { rank.addEventListener("input", filter); }
  filter();
  document.querySelectorAll(".drawing").forEach(function (d) {
    var svg = d.querySelector(".canvas svg");
    if (!svg) { return; }
    var w0 = svg.getAttribute("width"), h0 = svg.getAttribute("height");
    var scale = 1;
    function apply() {
      svg.style.width = "calc(" + w0 + " * " + scale + ")";
      svg.style.height = "calc(" + h0 + " * " + scale + ")";
    }
    function fit() {
      var box = d.clientWidth - 10, w = svg.getBoundingClientRect().width / scale;
      scale = w > box && w > 0 ? box / w : 1;
      apply();
    }
    d.querySelectorAll("button[data-zoom]").forEach(function (b) {
      b.addEventListener("click", function () {
        var z = parseFloat(b.dataset.zoom);
        if (z === 0) { fit(); } else { scale *= z; apply(); }
      });
    });
  });
})();
