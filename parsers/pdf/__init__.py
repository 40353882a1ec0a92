"""Reading a PDF's pages: PDFium's and pdfplumber's page readers, the checks before reading,
the text maps repaired, the page's pixels, lines of words, and the second library's
cross-check of the figures."""
