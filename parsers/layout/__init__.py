"""Layouts: templates and their engine, the table reader, the words and labels statements
print (OCR's read tolerantly), summary boxes, and which template a statement is."""
