"""Statement reading: PDF text and OCR, bank detection, templates, validation. No Prefect."""
