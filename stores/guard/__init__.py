"""The leak guard: a record's text freed of its outcome (leak.py, leak_languages.py), and the rewriting
and reading it relies on: a press release's voice (neutral.py, content_kept.py), a draft's page
furniture (draft_text.py), where a text came from (text_source.py), which language it is in.

May import: stores/records.py, stores/domain.py, stores/errors.py; nothing else of stores/.
"""
