"""Bank exports beside the PDFs: OFX/QFX, CAMT.053/.052/.054, MT940/MT942 and CSV.

Each is recognised by its content (`sniff.py`), read by a well-kept library where one
exists (ofxtools, mt-940, lxml through a hardened parser; CSV through templates), and
becomes the same `Statement` a PDF does, validated by the same rules (`build.py`);
`read.py` picks the reader. No Prefect here, as in all of `parsers/`; what a job pins of
these readers is `identity.py`'s. This package's own import loads nothing: the process that
hands files to parse workers reads the settings (`settings.py`) without the readers.
"""
