"""Notebook display: Model and Trajectory as HTML tables (escaped, bounded), numeric and symbolic models."""
import numpy as np

import multibody as mb
from multibody import symbolic as sym
from multibody.io.files import example_path
from multibody.viz.notebook import MAX_ROWS


def test_model_html_lists_bodies_and_joints():
    html = mb.load(example_path("four_bar"))._repr_html_()
    assert html.startswith("<table>") and html.count("<tr>") == 4  # header + 3 bodies
    assert "Model &#x27;four_bar&#x27;: 3 bodies, nq = 3, nv = 3, total mass 2.6 kg" in html
    assert "<td>coupler</td><td>crank</td><td>Revolute &#x27;B&#x27;</td><td>1</td><td>1.2</td>" in html
    assert "constraints: 1" in html


def test_model_html_escapes_names_and_shows_symbols():
    model = mb.Model("<b>bold</b>")
    model.add(mb.Body("a&b", mass=1.0, inertia=np.eye(3)), joint=mb.Revolute(name="<j>"))
    html = model._repr_html_()
    assert "<b>" not in html and "&lt;b&gt;bold" in html and "a&amp;b" in html
    chain, _ = sym.symbolic_chain(2)
    assert "total mass m_0 + m_1 kg" in chain._repr_html_() and "(l_0/2, 0, 0)" in chain._repr_html_()


def test_large_models_are_cut_with_a_count():
    html = mb.Model.chain(MAX_ROWS + 7)._repr_html_()
    assert html.count("<tr>") == MAX_ROWS + 2 and "… 7 more" in html


def test_trajectory_html_summarizes_without_computing():
    model = mb.Model.chain(2)
    traj = mb.Trajectory(model, [0.0, 0.5, 1.0], np.zeros((3, 2)), np.zeros((3, 2)),
                         events=[("hit", 0.25)], info={"method": "RK45", "steps": 12, "dt": None})
    html = traj._repr_html_()
    assert "Trajectory of &#x27;chain2&#x27;: 3 samples, t = 0 … 1 s, nq = 2, nv = 2; method RK45, steps 12" in html
    assert "<td>hit</td><td>0.25</td>" in html and "dt" not in html
    empty = mb.Trajectory(model, np.zeros(0), np.zeros((0, 2)), np.zeros((0, 2)))._repr_html_()
    assert empty.startswith("<p>") and "&#x27;chain2&#x27;: no samples, nq = 2" in empty
