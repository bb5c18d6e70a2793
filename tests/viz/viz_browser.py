"""Headless Chromium for the animation tests and screenshots: load a page, go to a frame, read back what plotly drew.

:func:`probed` copies an animation page and appends a probe script: once every plot is drawn it shows frame
``frame`` and writes, into ``<pre id="probe">``, per plot: plotly's resolved title, subtitle and axis titles, the
title text in the DOM, the slider's current value, and every trace's name and coordinates as drawn.
:func:`dump_dom` returns the page's DOM after its scripts ran (parsed probe: :func:`probe_of`).
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

import multibody as mb
from multibody.io.files import example_path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
EXAMPLES = ("double_pendulum", "four_bar", "rod_particle", "satellite_rotor", "six_axis_arm", "humanoid")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--hide-scrollbars",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-logging=stderr",
         "--v=0"]

_PROBE = """<script>
(function () {
  var frame = %s, size = %s;
  function coordinates(values) {
    return values ? Array.from(values, function (v) { return v === undefined ? null : v; }) : [];
  }
  function report(gd) {
    var full = gd._fullLayout, scene = full.scene;
    return {height: full.height, title: full.title.text, subtitle: (full.title.subtitle || {}).text,
            gtitle: (gd.querySelector('.gtitle') || {}).textContent,
            axes: ['xaxis', 'yaxis', 'zaxis'].map(function (a) { return scene[a].title.text; }),
            ranges: ['xaxis', 'yaxis', 'zaxis'].map(function (a) { return scene[a].range; }),
            slider: (gd.querySelector('.slider-group > text.slider-label') || {}).textContent,
            frames: gd._transitionData._frames.length,
            traces: gd._fullData.map(function (t) {
              return {name: t.name, type: t.type, visible: t.visible,
                      x: coordinates(t.x), y: coordinates(t.y), z: coordinates(t.z)}; })};
  }
  function ready(gd) { return gd._fullLayout && gd._transitionData && gd._transitionData._frames.length; }
  function probe() {
    var plots = Array.from(document.querySelectorAll('.plotly-graph-div'));
    if (!plots.length || !plots.every(ready)) { return setTimeout(probe, 50); }
    function resize(gd) {
      return size === null ? Promise.resolve() : Plotly.relayout(gd, {width: size[0], height: size[1]});
    }
    function show(gd) {
      if (frame === null) { return Promise.resolve(); }
      var name = String(Math.min(frame, gd._transitionData._frames.length - 1));
      return Plotly.animate(gd, [name], {mode: 'immediate', frame: {duration: 0, redraw: true},
                                         transition: {duration: 0}});
    }
    Promise.all(plots.map(resize)).then(function () {
      return Promise.all(plots.map(show));
    }).then(function () {
      var pre = document.createElement('pre');
      pre.id = 'probe';
      pre.style.display = 'none';
      pre.textContent = JSON.stringify(plots.map(report));
      document.body.appendChild(pre);
    });
  }
  window.addEventListener('load', probe);
})();
</script>
"""


def probed(page, out, frame=None, size=None):
    """A copy ``out`` of the HTML ``page`` that shows ``frame`` (an index; None: the first), its plots ``size``
    (width, height) px if given (headless Chromium's window is shorter than its screenshot), and reports itself."""
    html = Path(page).read_text(encoding="utf-8")
    probe = _PROBE % ("null" if frame is None else int(frame), "null" if size is None else json.dumps(list(size)))
    Path(out).write_text(html.replace("</body>", probe + "</body>"), encoding="utf-8")
    bundle = Path(page).parent / "plotly.min.js"
    if bundle.exists() and Path(page).parent.resolve() != Path(out).parent.resolve():
        shutil.copy(bundle, Path(out).parent / "plotly.min.js")
    return Path(out)


def _run(arguments, profile, budget_ms):
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def dump_dom(page, profile, budget_ms=10000):
    """(DOM as text after the scripts ran, console log lines) of ``page`` in headless Chromium."""
    run = _run(["--dump-dom", Path(page).as_uri()], profile, budget_ms)
    return run.stdout, [line for line in run.stderr.splitlines() if "CONSOLE" in line]


def screenshot(page, shot, profile, size=(800, 600), budget_ms=10000):
    """Console log lines; writes the PNG ``shot`` of ``page`` at ``size`` (width, height) px."""
    run = _run([f"--window-size={size[0]},{size[1]}", f"--screenshot={shot}", Path(page).as_uri()], profile,
               budget_ms)
    return [line for line in run.stderr.splitlines() if "CONSOLE" in line]


def probe_of(dom):
    """The probe's report (one dict per plot) from a dumped DOM."""
    match = re.search(r'<pre id="probe"[^>]*>(.*?)</pre>', dom, re.S)
    if match is None:
        raise AssertionError("the probe did not report: the page did not finish drawing")
    text = match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    return json.loads(text)


def errors(console):
    """Console lines that report a JavaScript error."""
    return [line for line in console if re.search(r"Uncaught|Error:|TypeError|ReferenceError", line)]


def example_trajectory(name):
    """The bundled example ``name`` simulated with its file's settings (5 s if it gives no end time, as the CLI)."""
    setup = mb.read_model_file(example_path(name))
    return mb.simulate(setup.model, setup.q0, setup.v0, **{"t_end": 5.0, **setup.simulation})
