"""Pure figure builders: data in, :class:`plotly.graph_objects.Figure` out. Tests call them
without Streamlit; panels and views draw what they return.

Holds the assignment figures (:mod:`.assignment_charts`), the animated rebalance
(:mod:`.animation_chart`), a live group's reconciliation and reading-to-reading figures
(:mod:`.reconciliation_charts`), the protocol timeline, member by member under each
rebalance protocol (:mod:`.protocol_timeline_chart`), aggregates for big groups
(:mod:`.aggregate_charts`), the deploy figures (:mod:`.deploy_charts`), the pipeline's figures
(:mod:`.pipeline_charts`), the fast figure shortcut and the ``Figure`` type panels annotate with
(:mod:`.figure_build`), figures as files (:mod:`.figure_files`: standalone HTML, the still copy
for a picture), PNG export (:mod:`.png_export`), the one escape for every text a chart did not
write itself (:mod:`.plotly_text`) and a walkthrough as one offline lesson file
(:mod:`.lesson_file`).

May import: :mod:`dashboard.model`, :mod:`assignors`, :mod:`plotly`, :mod:`pandas`, :mod:`numpy`
and :mod:`kaleido` (PNG export).
"""
