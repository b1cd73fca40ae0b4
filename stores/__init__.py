"""Data and state: the corpora (corpora/), the leak guard (guard/), a prompt's text (text/), run state
(state/) and what the user sets (config/); beside them the domain's facts (domain.py), the corpus's
typed records (records.py) and the input error (errors.py), which every part reads.

Inside, imports run one way: text/ → corpora/ → guard/ → config/, and state/ → config/; every part may
import domain.py, records.py and errors.py, which import nothing of stores/. May import nothing above
stores/ (tests/nationbias/test_contracts.py).
"""
