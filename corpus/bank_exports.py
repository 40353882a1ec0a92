"""A statement's truth written as its bank would export it: OFX, CAMT.053, MT940 and CSV.

The same money as the PDF drawn from that truth, so that an import of both must book each
transaction once. Each format as its public specification lays it out: OFX 1.02 SGML with
`LEDGERBAL` (a card as `CCSTMTRS`), CAMT.053.001.08 with `OPBD`/`CLBD` and one entry per
row, MT940 with `:60F:`/`:62F:` and one `:61:`/`:86:` per row, and a CSV per account with a
running balance column (none for a card, whose export is then an unverified source). The
institution fields name the bank as its PDF prints it (OFX `<ORG>`, CAMT `<Svcr>`, a CSV's
first line) or by its BIC (an MT940's SWIFT header, a CAMT's servicer); account numbers are
drawn around the truth's last four.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from pathlib import Path
from xml.sax.saxutils import escape

from parsers.model import Account, Statement, money

#: the bank's name as its exports carry it (OFX `<ORG>`, CAMT `<Svcr>`)
NAMES = {"northwind": "Northwind Bank", "bluebird": "Bluebird Credit Union",
         "harbor": "Harbor Card Services", "alpenbank": "Alpenbank AG",
         "meridian": "Meridian Savings Bank", "cedar": "Cedar Valley Bank"}
#: the bank's BIC, as its template names it (`[detect] bic`): an MT940's SWIFT header, a
#: CAMT's servicer
BICS = {"northwind": "NWBKUS33", "bluebird": "BLBDUS44", "harbor": "HRBCUS55",
        "alpenbank": "ALPBATWW", "meridian": "MRDNUS66", "cedar": "CDVBUS77"}
FORMATS = ("ofx", "camt", "mt940", "csv")
#: the banks whose statements are a card's (an OFX `CCSTMTRS`)
CARDS = frozenset({"harbor"})
#: where `generate(exports=True)` writes the export settings (`STMTFLOW_EXPORTS`): hidden, so
#: that an import of the folder does not take it for a statement
EXPORT_SETTINGS = ".exports.toml"
CAMT_NS = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"


def account_number(last4: str) -> str:
    return f"40211009{last4}"


def iban(last4: str) -> str:
    return f"DE00500105170021{last4}"


def write_exports(st: Statement, stem: Path, formats: tuple[str, ...] = FORMATS,
                  card: bool = False) -> list[Path]:
    """Write `st` as each of `formats` beside `stem` (`<stem>.ofx`, `.camt.xml`, `.sta`,
    `<stem>-<last4>.csv`); the paths written."""
    out = []
    if "ofx" in formats:
        out.append(_write(stem.with_name(stem.name + ".ofx"), ofx(st, card)))
    if "camt" in formats:
        out.append(_write(stem.with_name(stem.name + ".camt.xml"), camt053(st)))
    if "mt940" in formats:
        out.append(_write(stem.with_name(stem.name + ".sta"), mt940(st)))
    if "csv" in formats:
        for a in st.accounts:
            out.append(_write(stem.with_name(f"{stem.name}-{a.account_last4}.csv"),
                              csv_export(a, st.bank)))
    return out


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _period(st: Statement, a: Account) -> tuple[date, date]:
    dates = [t.date for t in a.transactions]
    start = st.period_start or (min(dates) if dates else date(2026, 1, 1))
    end = st.period_end or (max(dates) if dates else start)
    return start, end


def _split(text: str, width: int) -> list[str]:
    """`text` in pieces of at most `width`, cut at spaces (joined by one space again)."""
    pieces, line = [], ""
    for word in text.split():
        while len(word) > width:
            if line:
                pieces.append(line)
                line = ""
            pieces.append(word[:width])
            word = word[width:]
        if line and len(line) + 1 + len(word) > width:
            pieces.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*pieces, line] if line else pieces


def ofx(st: Statement, card: bool = False) -> bytes:
    """OFX 1.02 (SGML), one statement response per account."""
    name = NAMES.get(st.bank, st.bank)
    body = []
    for n, a in enumerate(st.accounts, start=1):
        start, end = _period(st, a)
        rows = []
        for i, t in enumerate(a.transactions):
            first, *rest = _split(t.description, 32) or [""]
            memo = f"<MEMO>{escape(' '.join(rest))}" if rest else ""
            rows.append(f"<STMTTRN><TRNTYPE>{'CREDIT' if t.amount > 0 else 'DEBIT'}"
                        f"<DTPOSTED>{t.date:%Y%m%d}120000<TRNAMT>{money(t.amount)}"
                        f"<FITID>{a.account_last4}{t.date:%Y%m%d}{i:04d}"
                        f"<NAME>{escape(first)}{memo}</STMTTRN>")
        account = (f"<CCACCTFROM><ACCTID>{account_number(a.account_last4)}</CCACCTFROM>"
                   if card else
                   f"<BANKACCTFROM><BANKID>121000248<ACCTID>{account_number(a.account_last4)}"
                   "<ACCTTYPE>CHECKING</BANKACCTFROM>")
        kind = "CC" if card else ""
        body.append(
            f"<{kind}STMTTRNRS><TRNUID>{n}<STATUS><CODE>0<SEVERITY>INFO</STATUS>"
            f"<{kind}STMTRS><CURDEF>{a.currency}{account}"
            f"<BANKTRANLIST><DTSTART>{start:%Y%m%d}<DTEND>{end:%Y%m%d}\n" + "\n".join(rows)
            + f"\n</BANKTRANLIST><LEDGERBAL><BALAMT>{money(a.closing_balance)}"
            f"<DTASOF>{end:%Y%m%d}</LEDGERBAL></{kind}STMTRS></{kind}STMTTRNRS>")
    msgs = "CREDITCARDMSGSRSV1" if card else "BANKMSGSRSV1"
    header = ("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\n"
              "CHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n")
    text = (header + "<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS>"
            "<DTSERVER>20260201120000<LANGUAGE>ENG"
            f"<FI><ORG>{escape(name)}<FID>1001</FI></SONRS></SIGNONMSGSRSV1>"
            f"<{msgs}>\n" + "\n".join(body) + f"\n</{msgs}></OFX>\n")
    return text.encode("cp1252", errors="replace")


def _camt_amount(value: Decimal, currency: str) -> str:
    return f'<Amt Ccy="{currency}">{money(abs(value))}</Amt>' \
           f"<CdtDbtInd>{'DBIT' if value < 0 else 'CRDT'}</CdtDbtInd>"


def camt053(st: Statement) -> bytes:
    """CAMT.053.001.08, one `Stmt` per account."""
    name = NAMES.get(st.bank, st.bank)
    stmts = []
    for n, a in enumerate(st.accounts, start=1):
        start, end = _period(st, a)
        entries = []
        for i, t in enumerate(a.transactions):
            ref = f"E2E-{a.account_last4}-{t.date:%Y%m%d}-{i:04d}"
            entries.append(
                f"<Ntry><NtryRef>{i + 1}</NtryRef>{_camt_amount(t.amount, a.currency)}"
                f"<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>{t.date}</Dt></BookgDt>"
                f"<ValDt><Dt>{t.date}</Dt></ValDt><AcctSvcrRef>SVC{i:06d}</AcctSvcrRef>"
                "<BkTxCd><Prtry><Cd>NTRF</Cd><Issr>DK</Issr></Prtry></BkTxCd>"
                f"<NtryDtls><TxDtls><Refs><EndToEndId>{ref}</EndToEndId></Refs>"
                f"{_camt_amount(t.amount, a.currency)}"
                f"<RmtInf><Ustrd>{escape(t.description)}</Ustrd></RmtInf>"
                "</TxDtls></NtryDtls></Ntry>")
        balances = "".join(
            f"<Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp>"
            f"{_camt_amount(value, a.currency)}<Dt><Dt>{when}</Dt></Dt></Bal>"
            for code, value, when in (("OPBD", a.opening_balance, start),
                                      ("CLBD", a.closing_balance, end)))
        stmts.append(
            f"<Stmt><Id>{st.bank}-{a.account_last4}-{end:%Y%m%d}</Id>"
            f"<ElctrncSeqNb>{n}</ElctrncSeqNb><CreDtTm>{end}T23:00:00</CreDtTm>"
            f"<FrToDt><FrDtTm>{start}T00:00:00</FrDtTm><ToDtTm>{end}T23:59:59</ToDtTm></FrToDt>"
            f"<Acct><Id><IBAN>{iban(a.account_last4)}</IBAN></Id><Ccy>{a.currency}</Ccy>"
            f"<Svcr><FinInstnId><BICFI>{BICS.get(st.bank, 'CDVBUS77')}XXX</BICFI>"
            f"<Nm>{escape(name)}</Nm>"
            f"</FinInstnId></Svcr></Acct>{balances}" + "".join(entries) + "</Stmt>")
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="{CAMT_NS}">'
            "<BkToCstmrStmt><GrpHdr><MsgId>stmtflow-sample</MsgId>"
            "<CreDtTm>2026-02-01T00:00:00</CreDtTm></GrpHdr>" + "".join(stmts)
            + "</BkToCstmrStmt></Document>\n").encode()


def _mt_amount(value: Decimal) -> str:
    return money(abs(value)).replace(".", ",")


def _mt_balance(tag: str, value: Decimal, when: date, currency: str) -> str:
    return f":{tag}:{'D' if value < 0 else 'C'}{when:%y%m%d}{currency}{_mt_amount(value)}"


def mt940(st: Statement) -> bytes:
    """MT940, one message per account in its SWIFT envelope (the sender's BIC in the basic
    header); `:86:` as free text in 65-character lines."""
    blocks = []
    for n, a in enumerate(st.accounts, start=1):
        start, end = _period(st, a)
        lines = [f":20:STMT{end:%y%m%d}{n:02d}", f":25:50010517/{account_number(a.account_last4)}",
                 f":28C:{n:05d}/001", _mt_balance("60F", a.opening_balance, start, a.currency)]
        for i, t in enumerate(a.transactions):
            mark = "D" if t.amount < 0 else "C"
            lines.append(f":61:{t.date:%y%m%d}{t.date:%m%d}{mark}{_mt_amount(t.amount)}"
                         f"NTRFNONREF//B{t.date:%m%d}{i:04d}")
            details = _split(t.description.replace(":", " "), 65) or ["-"]
            lines.append(":86:" + details[0])
            lines += details[1:6]
        lines.append(_mt_balance("62F", a.closing_balance, end, a.currency))
        bic = BICS.get(st.bank, "CDVBUS77")
        blocks.append(f"{{1:F01{bic}AXXX0000000000}}{{2:O940{end:%y%m%d}}}{{4:\r\n"
                      + "\r\n".join(lines) + "\r\n-}")
    return ("\r\n".join(blocks) + "\r\n").encode("latin-1", errors="replace")


def csv_export(a: Account, bank: str | None = None) -> bytes:
    """One account's rows as a CSV with a header, ISO dates, signed amounts and the running
    balance after each row (blank where the truth has none), after lines naming the bank, the
    account and its currency where the bank is given (so a month without rows still names
    them)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    if bank is not None:  # a preamble, as banks write one: who, and which account
        w.writerow(["Bank", NAMES.get(bank, bank)])
        w.writerow(["Account", account_number(a.account_last4)])
        w.writerow(["Currency", a.currency])
    w.writerow(["Booking date", "Description", "Amount", "Balance", "Currency", "Account"])
    for t in a.transactions:
        w.writerow([t.date.isoformat(), t.description, money(t.amount),
                    "" if t.balance is None else money(t.balance), a.currency,
                    account_number(a.account_last4)])
    return out.getvalue().encode()
