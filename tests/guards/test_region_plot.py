"""plot_region draws a colour-blind-safe map: blue/orange with the recompiling cells hatched, never red/green."""

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from guards import GuardSet, parse_source  # noqa: E402
from guards.runtime.region import plot_region  # noqa: E402

GS = GuardSet.parse("2 <= L['x'].size()[0] <= 15\n2 <= L['x'].size()[1] <= 9")
X, Y = parse_source("L['x'].size()[0]"), parse_source("L['x'].size()[1]")
RED_GREEN = {to_rgba(c) for c in ("tab:red", "tab:green", "red", "green")}


def _colours(ax) -> set:
    found = set()
    for artist in [*ax.collections, *ax.images, *ax.get_legend().get_patches(), *ax.get_legend().legend_handles]:
        for getter in ("get_facecolor", "get_edgecolor", "get_color"):
            if hasattr(artist, getter):
                try:
                    colours = matplotlib.colors.to_rgba_array(getattr(artist, getter)())
                except (ValueError, TypeError):
                    continue
                found |= {tuple(c) for c in colours}
        cmap = getattr(artist, "get_cmap", lambda: None)()
        if cmap is not None:
            found |= {tuple(cmap(v)) for v in (0.0, 1.0)}
    return found


@pytest.mark.parametrize("ydim", [None, Y])
def test_plot_region_uses_no_red_green_and_says_blue(ydim) -> None:
    ax = plot_region(GS, X, ydim, xs=range(0, 20), ys=range(0, 12))
    try:
        assert not (_colours(ax) & RED_GREEN)
        assert to_rgba("tab:blue") in _colours(ax) and to_rgba("tab:orange") in _colours(ax)
        assert "green" not in ax.get_title()
    finally:
        plt.close(ax.figure)


def test_plot_region_2d_hatches_the_recompiling_cells() -> None:
    ax = plot_region(GS, X, Y, xs=range(0, 20), ys=range(0, 12))
    try:
        hatches = [p.get_hatch() for p in ax.get_legend().get_patches()]
        hatches += [h for c in ax.collections for h in ([c.get_hatch()] if hasattr(c, "get_hatch") else [])]
        assert any(hatches), hatches
    finally:
        plt.close(ax.figure)
