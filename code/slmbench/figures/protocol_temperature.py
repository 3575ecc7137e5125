"""The protocol study's repeats and temperature sweep: per model under the full protocol, capability accuracy
over all repeats at each temperature (95 % Wilson intervals), and pass@k / pass^k over the k repeats.

Reads the ``protocol`` topic (its ``repeats`` table says which model ran at which temperature; drawn are the
numbers ``proto.rep.<model>.<t>.acc`` with ``.lo``/``.hi``, ``.pass-at-k`` and ``.pass-hat-k``) and the
``capability`` topic's ``models`` table (names, base flag, and each model's colour, the same in every figure).
"""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.analysis.numbers import slug, temp_slug
from slmbench.figures.plots import errors, labels_of, percent_axis
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import OURS
from slmbench.figures.style import BASE_COLOR, no_data, panels, qualitative_colors, shared_legend

TOPIC = "protocol"


@figure(reads=("protocol", "capability"))
def draw(src: Source) -> Figure:
    """Left: accuracy vs temperature; right: pass@k (dashed) and pass^k (solid) vs temperature."""
    fig, (acc_ax, k_ax) = panels(2, height=3.2)
    rows = src.table(TOPIC, "repeats")
    models = OURS.models(src)
    if rows.empty or models.empty:
        no_data(acc_ax, "no trial under the full protocol")
        no_data(k_ax, "no repeats")
        return fig
    palette = qualitative_colors("tab10", max(len(models), 1))  # a model keeps its colour across figures
    k_values: set[int] = set()
    for i, (label, model, base) in enumerate(
        zip(labels_of(models), models["model"], models["is_base"], strict=True)
    ):
        temps = sorted(float(t) for t in rows.loc[rows["model"] == model, "temperature"])
        if not temps:
            continue
        color = BASE_COLOR if base else palette[i % len(palette)]
        keys = [(t, f"proto.rep.{slug(str(model))}.{temp_slug(t)}") for t in temps]
        acc = [(t, a) for t, k in keys if (a := src.values(f"{k}.acc", f"{k}.acc.lo", f"{k}.acc.hi"))]
        if acc:
            ys = [a[0] for _, a in acc]
            acc_ax.errorbar(
                [t for t, _ in acc],
                ys,
                yerr=errors(ys, [a[1] for _, a in acc], [a[2] for _, a in acc]),
                marker="o",
                ms=3,
                capsize=2,
                lw=0.9,
                ls="--" if base else "-",
                color=color,
                label=label,
            )
        for suffix, marker, style in (("pass-at-k", "^", "--"), ("pass-hat-k", "v", "-")):
            line = [(t, v) for t, k in keys if (v := src.value(f"{k}.{suffix}")) is not None]
            k_ax.plot(
                [t for t, _ in line], [v for _, v in line], marker=marker, ms=3, lw=0.9, ls=style, color=color
            )
        k_values |= {int(v) for _, k in keys if (v := src.value(f"{k}.k")) is not None}
    k_text = "k" if len(k_values) != 1 else str(next(iter(k_values)))
    for ax, ylabel in (
        (acc_ax, "accuracy over all repeats (95% Wilson)"),
        (k_ax, f"pass@{k_text} (dashed), pass$^{{{k_text}}}$ (solid)"),
    ):
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("temperature")
        ax.set_ylabel(ylabel)
        percent_axis(ax)
    shared_legend(fig, [acc_ax])
    fig.suptitle("Capability under the full protocol: repeats and temperature")
    return fig
