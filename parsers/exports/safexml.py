"""XML from outside, parsed so that it can neither expand nor reach anything.

A bank export is data, so its XML may declare nothing: a document type declaration (where
entities live: the billion laughs, an external entity naming `file:///etc/passwd` or a URL)
is refused before any parser sees the bytes, and the parser itself is built to resolve no
entity, load no DTD, fetch nothing from the network and keep libxml2's limits on depth and
text size (`huge_tree=False`). What is refused fails `xml_rejected`; XML that is merely
broken is `corrupt`.
"""

from __future__ import annotations

import codecs
import re

from lxml import etree

from parsers.errors import CorruptExport, XmlRejected

#: a DTD, or any declaration inside one, anywhere in the document
_DECLARATION = re.compile(rb"<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)", re.I)


def parser() -> etree.XMLParser:
    """A fresh parser that resolves no entity, loads no DTD and fetches nothing."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=False, remove_pis=True,
                           remove_comments=True)


def parse(data: bytes, max_bytes: int) -> etree._Element:
    """The root element of `data`; `XmlRejected` for a declaration or a file over
    `max_bytes`, `CorruptExport` for XML that does not parse."""
    if len(data) > max_bytes:
        raise XmlRejected(f"the XML is {len(data)} bytes, over the limit of {max_bytes}")
    if _DECLARATION.search(_as_utf8(data)):
        raise XmlRejected("the XML declares a document type or entities: refused unread "
                          "(no entity is expanded, nothing it names is fetched)")
    try:
        root = etree.fromstring(data, parser())
    except etree.XMLSyntaxError as exc:
        raise CorruptExport(f"the XML does not parse: {exc}") from None
    if root is None:
        raise CorruptExport("the XML holds no element")
    for node in root.iter():
        if isinstance(node, etree._Entity):
            raise XmlRejected("the XML refers to an entity: refused")
    return root


def _as_utf8(data: bytes) -> bytes:
    """`data` as UTF-8 where a UTF-16 byte-order mark says it is not (so the declaration's
    search sees its characters)."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", errors="ignore").encode()
    return data
