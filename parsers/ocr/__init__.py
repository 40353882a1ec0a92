"""Scanned pages: tesseract and RapidOCR, straightening a page, re-reading doubtful words,
the ink a page shows, a text layer as a third witness, and what OCR's doubts are trusted for."""
