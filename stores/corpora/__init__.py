"""The corpora and the data files read with them: the Council's records, the UN's own texts, the
Assembly's roll calls, members and regions, the shipped copy (bundled.py), validation, and the fields
derived for retrieval (augment.py, keywords.py, un_fields.py).

May import: stores/guard/ (each text is leak-guarded as it is read), stores/config/, stores/domain.py,
stores/records.py, stores/errors.py; never stores/text/ or stores/state/.
"""
