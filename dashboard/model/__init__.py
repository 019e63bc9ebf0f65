"""Pure view models: what the pages show, worked out from the core's answers without a widget.

Holds the what-if edits (:mod:`.whatif`), share links (:mod:`.share`), where a scenario came from
(:mod:`.sources`), member colours and short labels (:mod:`.palette`), the comparison in words
(:mod:`.summary`), the members table (:mod:`.members_table`), the deploy picture
(:mod:`.deploy_model`), each member's state over time under each rebalance protocol
(:mod:`.protocol_timeline`), the numbers of groups too big to draw (:mod:`.aggregates`) and user
text made literal for Markdown (:mod:`.plain`) and who may open which page or cluster once users
sign in (:mod:`.access`). Every
function here is pure and testable without Streamlit.

May import: :mod:`assignors` (its public names) and :mod:`pandas`.
"""
