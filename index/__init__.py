"""Index: the Whoosh schema and analysis, the record-to-document mapping, and atomic builds.

A build reads a corpus, writes a fresh snapshot folder beside the live one, commits it, reopens it
to check it, and only then swaps the ``current`` pointer to it.  Readers follow the pointer, so they
see the old snapshot or the new one, never a half-written one.
"""
