"""Corpus: turn source files into typed records.

A topic hub publishes, per topic, a page (the topic's name, description and its listed events) and
a long-form guide split into sections.  The loaders here read those files, and JSONL files of
further documents, into frozen records (`Topic`, `Event`, `GuideSection`).  Nothing here knows
Whoosh: the index package maps records to documents.
"""

from corpus.errors import CorpusError
from corpus.records import Event, GuideSection, Record, Topic

__all__ = ["CorpusError", "Event", "GuideSection", "Record", "Topic"]
