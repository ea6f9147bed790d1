"""The tour notebook (python/examples/tour.ipynb) runs top to bottom in a real kernel,
as a designer opening it in Jupyter would run it: every cell, its asserts included."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_tour_notebook_runs_every_cell() -> None:
    nb = nbformat.read(EXAMPLES / "tour.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code)
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    # The chart cell shows a PNG, the roster cell a table.
    kinds = [set(o.get("data", {})) for c in code for o in c.get("outputs", [])]
    assert any("image/png" in k for k in kinds), kinds
    assert any("text/html" in k for k in kinds), kinds
