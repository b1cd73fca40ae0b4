"""Run state under ``NATIONBIAS_HOME``: the run store and its lease, the response cache, LangGraph
checkpoints, batch mode's rounds, translations, derived frames, a dry run's scratch folder, and the one
way to open SQLite.

May import: stores/config/, stores/domain.py, stores/errors.py; never the corpora, the guard or text/.
"""
