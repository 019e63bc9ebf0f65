"""Pure figure builders: data in, :class:`plotly.graph_objects.Figure` out. Tests call them
without Streamlit; panels and views draw what they return.

Holds the assignment figures (:mod:`.assignment_charts`), the animated rebalance
(:mod:`.animation_chart`), aggregates for big groups (:mod:`.aggregate_charts`), the deploy
figures (:mod:`.deploy_charts`), the pipeline's figures (:mod:`.pipeline_charts`), the fast figure
shortcut (:mod:`.figure_build`) and PNG export (:mod:`.png_export`).

May import: :mod:`dashboard.model`, :mod:`assignors`, :mod:`plotly`, :mod:`pandas`, :mod:`numpy`
and :mod:`kaleido` (PNG export).
"""
