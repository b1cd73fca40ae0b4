"""A prompt's text: the budget that spends it on what a draft would do (budget.py) by cutting between
sentences (cut.py), mending what the data hands it (mend.py) and enriching a thin text (enrich.py), and
its audit (audit.py); the UN's own text as a prompt shows it (un_prompt.py); post-vote statements.

May import: stores/corpora/, stores/guard/, stores/domain.py, stores/records.py, stores/errors.py.
"""
