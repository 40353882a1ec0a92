"""What a parse worker runs for an import.

Light on purpose, like `identity.py`: the process that hands an import's files to parse
workers imports this to name their work, while the parser and the rendering (PDFium,
pdfminer, pyarrow) load only in the workers, whose fork server imports them once for all
(`WORKER_MODULES`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from parsers.worker.rendered import Rendered

if TYPE_CHECKING:
    from parsers.exports.settings import Exports
    from parsers.layout.template import Template

#: what a parse worker imports before its first file: the parser, the rendering, and
#: pandas, which pyarrow imports as it builds its first array
WORKER_MODULES = ("parsers.api", "parsers.files", "parsers.worker.statement_files", "pandas")


def parse_and_render(data: bytes, *, templates: Sequence[Template], reader: str,
                     input_sha256: str, pinned: Mapping[str, str],
                     exports: Exports | None = None, **kwargs: Any) -> Rendered:
    """`parse_file(data, **kwargs)` (a PDF or a bank export) with `templates`, the page
    reader called `reader` and the export settings `exports`, rendered for the input
    `input_sha256` under the identities `pinned`: what a parse worker runs for an import
    (bound with `functools.partial`, it pickles as a reference to this function and its
    arguments)."""
    from parsers.api import page_reader  # in the worker: see the module's note
    from parsers.files import parse_file
    from parsers.worker.statement_files import render

    result = parse_file(data, templates=list(templates), reader=page_reader(reader),
                        exports=exports, **kwargs)
    return render(result, input_sha256, pinned)
