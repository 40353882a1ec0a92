"""Bank exports read into the statement a PDF gives, validated alike, or refused by reason."""

from __future__ import annotations

import codecs
import io
from decimal import Decimal
from pathlib import Path

import mt940
import pytest
from lxml import etree
from ofxtools.Parser import OFXTree

from corpus import statement
from corpus.bank_exports import camt053, csv_export, ofx
from corpus.bank_exports import mt940 as write_mt940
from parsers.codes import Reason
from parsers.errors import StatementError
from parsers.exports import safexml
from parsers.exports.csvread import guess_template
from parsers.exports.settings import AccountRule, Exports
from parsers.exports.sniff import sniff
from parsers.files import parse_file
from parsers.identity import chain_revision
from parsers.layout.template import load_templates
from parsers.model import Statement

SAMPLES = Path(__file__).parent / "export_samples"


def _money(st: Statement) -> list[tuple]:
    """A statement's figures, for comparison."""
    return [(a.account_last4, a.currency, a.opening_balance, a.closing_balance,
             [(t.date, t.amount) for t in a.transactions]) for a in st.accounts]


@pytest.mark.parametrize("fmt", ["ofx", "camt", "mt940", "csv"])
def test_a_generated_month_reads_as_its_truth_and_validates(fmt: str) -> None:
    truth = statement("northwind", index=3).truth
    data = {"ofx": lambda: ofx(truth), "camt": lambda: camt053(truth),
            "mt940": lambda: write_mt940(truth),
            "csv": lambda: csv_export(truth.accounts[0], "northwind")}[fmt]()
    assert sniff(data) == fmt
    result = parse_file(data, exports=Exports.load(None))
    assert result.validation.ok, result.validation.problems
    assert _money(result.statement) == _money(truth)
    assert result.statement.source["format"].startswith({"camt": "camt.053"}.get(fmt, fmt))
    # by its name (OFX, CAMT, the CSV's first line) or its BIC (MT940, CAMT)
    assert result.statement.bank == "northwind"
    assert all(t.reference for a in result.statement.accounts for t in a.transactions) \
        or fmt == "csv"


def test_detection_is_by_content_never_by_name() -> None:
    truth = statement("bluebird", index=1).truth
    assert sniff(b"\xef\xbb\xbf" + csv_export(truth.accounts[0])) == "csv"
    with_bom = codecs.BOM_UTF8 + b"\r\n" + ofx(truth)
    assert sniff(with_bom) == "ofx" and parse_file(with_bom).validation.ok
    assert sniff(b"!Type:Bank\nD01/02/2026\nT-4.50\n^\n") == "unsupported:qif"
    pain = (b'<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:'
            b'pain.001.001.09"><CstmrCdtTrfInitn/></Document>')
    assert sniff(pain) == "unsupported:pain.001"
    assert sniff(b"Your statement is attached.\n") is None
    assert sniff(b"%PDF-1.7\n...") == "pdf"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><x>&lol9;</x></Document>"""
XXE = b"""<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><x>&xxe;</x></Document>"""
OFX_XXE = (b'<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="220"?>'
           b'<!DOCTYPE OFX [<!ENTITY e SYSTEM "http://127.0.0.1:9/x">]><OFX>&e;</OFX>')


@pytest.mark.parametrize("data", [BILLION_LAUGHS, XXE, OFX_XXE], ids=["laughs", "xxe", "ofx"])
def test_hostile_xml_is_rejected_unread(data: bytes) -> None:
    with pytest.raises(StatementError) as refused:
        parse_file(data)
    assert refused.value.reason == Reason.XML_REJECTED


@pytest.mark.parametrize(("data", "reason"), [
    (b"!Type:Bank\nD01/02/2026\nT-4.50\n^\n", Reason.UNSUPPORTED_FORMAT),
    (b"OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS>",
     Reason.CORRUPT),
    ((SAMPLES / "sgml-102.ofx").read_bytes().split(b"<BANKMSGSRSV1>")[0]
     + b"<INVSTMTMSGSRSV1><INVSTMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>"
     b"<INVSTMTRS><DTASOF>20260131<CURDEF>USD<INVACCTFROM><BROKERID>example.com"
     b"<ACCTID>12345678</INVACCTFROM></INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1></OFX>",
     Reason.UNSUPPORTED_FORMAT),
    (b'<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">'
     b"<BkToCstmrStmt><Stmt><Acct><Id><IBAN>DE001234</IBAN></Id></Acct>"
     b"<Ntry><BookgDt><Dt>2026-01-02</Dt></BookgDt></Ntry></Stmt>", Reason.CORRUPT),
    (b"Date,Description,Amount\n03/04/2026,COFFEE,-4.50\n04/03/2026,TEA,-2.00\n",
     Reason.UNSUPPORTED_FORMAT),
    (b":20:S\r\n:25:50010517/4021100912\r\n:28C:1/1\r\n:60F:C260101EUR10,00\r\n"
     b":61:2601010101D1,005NTRFNONREF\r\n:86:FEE\r\n:62F:C260101EUR8,995\r\n-\r\n",
     Reason.CORRUPT),
])
def test_bad_exports_fail_with_a_classified_reason(data: bytes, reason: Reason) -> None:
    with pytest.raises(StatementError) as refused:
        parse_file(data)
    assert refused.value.reason == reason


def test_an_export_without_balances_needs_review_unless_its_account_is_trusted() -> None:
    truth = statement("harbor", index=2).truth  # a card: no running balance
    data = csv_export(truth.accounts[0])
    last4 = truth.accounts[0].account_last4
    held = parse_file(data)
    assert not held.validation.ok
    assert "unverified source" in held.validation.problems[0]
    trusted = parse_file(data, exports=Exports((AccountRule(f"harbor:{last4}", "harbor",
                                                            True),)))
    assert trusted.validation.ok and trusted.statement.bank == "harbor"
    assert not trusted.statement.accounts[0].balances_printed
    assert "trust" in " ".join(trusted.notes)


def test_daily_mt940_statements_that_do_not_chain_are_named() -> None:
    block = (":20:S{n}\r\n:25:50010517/4021100912\r\n:28C:{n}/1\r\n:60F:C26010{n}EUR{o}\r\n"
             ":61:26010{n}D1,00NTRFNONREF\r\n:86:FEE\r\n:62F:C26010{n}EUR{c}\r\n-\r\n")
    data = (block.format(n=1, o="10,00", c="9,00") + block.format(n=2, o="8,00", c="7,00"))
    result = parse_file(data.encode())
    assert not result.validation.ok
    assert "closes at 9.00 and the next opens at 8.00" in result.validation.problems[0]


def test_the_generic_csv_reader_proposes_a_template_that_reads_the_file() -> None:
    data = (SAMPLES / "ing-umsatzanzeige.csv").read_bytes()
    template = guess_template(data)
    assert (template.delimiter, template.locale, template.date_format, template.order) == (
        ";", "de", "%d.%m.%Y", "newest_first")
    assert "[columns]" in template.to_toml()
    by_builtin = parse_file(data, exports=Exports.load(None))
    by_guess = parse_file(data, exports=Exports())
    assert by_builtin.layout == "csv:ing-de" and by_builtin.statement.bank == "ing"
    assert by_builtin.validation.ok and by_guess.validation.ok
    assert _money(by_builtin.statement) == _money(by_guess.statement)


def test_the_chain_pins_the_export_readers_and_settings() -> None:
    templates = load_templates()
    base = chain_revision(templates, "pdfium")
    assert chain_revision(templates, "pdfium", Exports().revision) != base
    trusting = Exports((AccountRule("1234", None, True),))
    assert chain_revision(templates, "pdfium", trusting.revision) != chain_revision(
        templates, "pdfium", Exports().revision)


# -- the reader libraries' own sample formats: what the library reports, we book -------------


def test_mt940_samples_read_as_mt940_reports_them() -> None:
    for path in sorted(SAMPLES.glob("*.sta")):
        data = path.read_bytes()
        ours = parse_file(data).statement
        theirs = [t.data for block in mt940.parse_statements(io.BytesIO(data)) for t in block]
        assert [(t.date, t.amount) for a in ours.accounts for t in a.transactions] == [
            (t.get("entry_date") or t["date"], t["amount"].amount) for t in theirs], path.name
        assert parse_file(data).validation.ok, path.name


def test_ofx_samples_read_as_ofxtools_reports_them() -> None:
    for path in sorted(SAMPLES.glob("*.ofx")) + sorted(SAMPLES.glob("*.qfx")):
        data = path.read_bytes()
        result = parse_file(data)
        tree = OFXTree()
        tree.parse(io.BytesIO(data))
        theirs = [(t.fitid, t.trnamt) for st in tree.convert().statements
                  for t in st.banktranlist]
        assert [(t.reference, t.amount) for a in result.statement.accounts
                for t in a.transactions] == theirs, path.name
        assert result.validation.ok, path.name


def test_camt_sample_reads_its_entries_and_balances() -> None:
    result = parse_file((SAMPLES / "camt053-v02.xml").read_bytes())
    assert result.validation.ok, result.validation.problems
    (acct,) = result.statement.accounts
    assert (acct.opening_balance, acct.closing_balance) == (Decimal("1000.00"),
                                                            Decimal("1341.25"))
    assert [t.amount for t in acct.transactions] == [Decimal("-158.75"), Decimal("500.00")]


def _camt(message: str, balances: str, status: str = "<Sts><Cd>BOOK</Cd></Sts>") -> bytes:
    root = {"052": ("BkToCstmrAcctRpt", "Rpt"), "053": ("BkToCstmrStmt", "Stmt"),
            "054": ("BkToCstmrDbtCdtNtfctn", "Ntfctn")}[message]
    return (f'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.{message}.001.04">'
            f"<{root[0]}><GrpHdr><MsgId>1</MsgId></GrpHdr><{root[1]}><Id>1</Id>"
            "<Acct><Id><Othr><Id>0532013000</Id></Othr></Id><Ccy>CHF</Ccy></Acct>"
            f"{balances}<Ntry><Amt Ccy='CHF'>20.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>{status}"
            "<BookgDt><DtTm>2026-01-05T10:00:00</DtTm></BookgDt>"
            "<AddtlNtryInf>KARTE 1234 MIGROS</AddtlNtryInf></Ntry>"
            f"</{root[1]}></{root[0]}></Document>").encode()


def _bal(code: str, amount: str) -> str:
    return (f"<Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp><Amt Ccy='CHF'>{amount}</Amt>"
            "<CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-05</Dt></Dt></Bal>")


def test_camt_052_and_054_read_and_a_054_without_balances_is_unverified() -> None:
    report = parse_file(_camt("052", _bal("OPBD", "100.00") + _bal("CLBD", "80.00")))
    assert report.validation.ok and report.layout == "camt.052"
    assert report.statement.accounts[0].transactions[0].description == "KARTE 1234 MIGROS"
    notice = parse_file(_camt("054", ""))
    assert notice.layout == "camt.054" and not notice.validation.ok
    assert "unverified source" in notice.validation.problems[0]
    pending = parse_file(_camt("053", _bal("OPBD", "100.00") + _bal("CLBD", "100.00"),
                               "<Sts>PDNG</Sts>"))
    assert pending.validation.ok and pending.statement.transaction_count == 0


def test_an_mt942_interim_report_is_an_unverified_source() -> None:
    data = (b":20:INTERIM\r\n:25:50010517/4021100912\r\n:28C:1/1\r\n:34F:EURD0,\r\n"
            b":13D:2601051200+0100\r\n:61:2601050105D12,00NTRFNONREF\r\n:86:KIOSK\r\n"
            b":90D:1EUR12,00\r\n-\r\n")
    assert sniff(data) == "mt940"
    result = parse_file(data)
    assert [t.amount for t in result.statement.accounts[0].transactions] == [Decimal("-12.00")]
    assert "unverified source" in result.validation.problems[0]


def test_a_structured_86_reads_its_purpose_and_end_to_end_reference() -> None:
    result = parse_file((SAMPLES / "volksbank-style.sta").read_bytes())
    first, *_ = result.statement.accounts[0].transactions
    assert first.description.startswith("Sportverein Musterstadt e.V. 7781204455 Monatsbeitrag")
    assert "DE02120300000000202051" not in first.description
    assert first.reference == "7781204455"


def test_an_ofx_without_header_or_with_its_list_left_open_reads_alike_and_says_so() -> None:
    whole = (SAMPLES / "sgml-102.ofx").read_bytes()
    rows = _money(parse_file(whole).statement)
    headerless = whole[whole.index(b"<OFX>"):]
    left_open = whole.replace(b"</BANKTRANLIST>", b"")
    for data, note in ((headerless, "no header"), (left_open, "BANKTRANLIST open")):
        result = parse_file(data)
        assert result.validation.ok and _money(result.statement) == rows
        assert any(note in n for n in result.notes)


def test_a_camt_inside_a_business_application_header_envelope_reads() -> None:
    bare = (SAMPLES / "camt053-v02.xml").read_bytes().split(b"?>", 1)[1]
    wrapped = (b'<?xml version="1.0"?><BizMsgEnvlp><AppHdr xmlns="urn:iso:std:iso:20022:tech:'
               b'xsd:head.001.001.02"><MsgDefIdr>camt.053.001.02</MsgDefIdr></AppHdr>' + bare
               + b"</BizMsgEnvlp>")
    assert sniff(wrapped) == "camt"
    result = parse_file(wrapped)
    assert result.validation.ok and result.layout == "camt.053"
    assert _money(result.statement) == _money(parse_file(bare).statement)


def test_the_xml_parser_itself_expands_no_entity_and_fetches_nothing() -> None:
    """The second line of defence, behind the refusal of every declaration."""
    root = etree.fromstring(XXE, safexml.parser())
    assert "root:" not in etree.tostring(root).decode()
    laughs = etree.fromstring(BILLION_LAUGHS, safexml.parser())
    assert len(etree.tostring(laughs)) < len(BILLION_LAUGHS) * 2


def test_a_bic_of_a_template_names_the_bank_of_an_mt940_and_one_of_none_does_not() -> None:
    data = (SAMPLES / "deutsche-structured.sta").read_bytes()
    assert parse_file(data).statement.bank == "unknown"  # DEUTDEFF: no template's
    ing = data.replace(b"{1:F01DEUTDEFFAXXX", b"{1:F01INGDDEFFAXXX")
    assert parse_file(ing).statement.bank == "ing"
    assert parse_file(ing, bank="postbank").statement.bank == "postbank"  # the hint wins
